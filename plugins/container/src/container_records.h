// container_records.h — what the plugin remembers about each computer while it runs.
//
// Only what the engine cannot tell: the shell readiness checks use, the order in which
// operations on one computer run, and whether a stop in progress was asked for by this plugin
// (so that the death watch does not report it). Everything else is read from the engine each
// time, which is what makes a host restart harmless.
//
// EngineLoop thread only, like every flow that uses it.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <vc_engine/engine_loop.h>

#include "host_mounts.h"

namespace vc::container {

}  // namespace vc::container
namespace vc::agent_channel {
class DesktopChannel;    // vc_agent_channel/desktop_channel.h
class ExecAgentChannel;  // vc_agent_channel/exec_agent_channel.h
}  // namespace vc::agent_channel
namespace vc::container {

// Jobs that run one at a time, in the order they were queued. A job receives `done` and calls
// it exactly once when it has finished; the next job then starts on a later loop turn.
class SerialLane {
 public:
  using Job = std::function<void(std::function<void()> done)>;

  explicit SerialLane(engine::EngineLoop& loop) : loop_(loop) {}
  SerialLane(const SerialLane&) = delete;
  SerialLane& operator=(const SerialLane&) = delete;

  // Queues `job`; returns a ticket for withdraw().
  std::uint64_t enqueue(Job job);
  // Removes a job that has not started yet; false when it has started (or never existed).
  bool withdraw(std::uint64_t ticket);
  // Drops every queued job without running it (shutdown).
  void clear() { queue_.clear(); }

 private:
  void start_next();

  engine::EngineLoop& loop_;
  std::deque<std::pair<std::uint64_t, Job>> queue_;
  bool running_ = false;
  std::uint64_t next_ticket_ = 1;
  // Bumped by each job start, so that a `done` called twice cannot start two jobs.
  std::uint64_t running_job_ = 0;
  // The start of the next job is posted to the loop after the finished job let go of the
  // record that owns this lane; the posted callback checks this token before touching the
  // lane, because shutdown may have freed it in between.
  std::shared_ptr<char> alive_ = std::make_shared<char>();
};

class ComputerRecord : public std::enable_shared_from_this<ComputerRecord> {
 public:
  ComputerRecord(engine::EngineLoop& loop, std::string id)
      : computer_id(std::move(id)), execs(loop), lifecycle(loop) {}

  const std::string computer_id;
  // The shell of the last create or attach: what restart and factory reset check readiness
  // with. /bin/sh until one of those ran in this process.
  std::string shell = "/bin/sh";
  // The full container id last seen, for messages when the container is already gone.
  std::string container_id;
  // A desktop computer's Xfce state as last seen live (listings use it; nullopt = unknown).
  std::optional<bool> desktop_enabled;
  // The host folders mounted into the computer and who owns what is made in them, as its labels
  // said at the last create or attach (the commands hand root's files over after each run).
  std::vector<HostMount> mounts;
  MountOwner mount_owner;
  bool mounts_known = false;  // set with them; a command before any attach reads the labels
  // The open line to the computer's desktop agent, made at the first desktop action.
  std::shared_ptr<agent_channel::DesktopChannel> desktop_channel;
  // The open line to the computer's exec agent, made at the first command (--exec-agent).
  std::shared_ptr<agent_channel::ExecAgentChannel> exec_agent;

  // Execs run one at a time in call order (the original's per-computer lock); lifecycle
  // operations (create, attach, restart, remove, reset, network) in a lane of their own, so a
  // network switch does not wait for a long command.
  SerialLane execs;
  SerialLane lifecycle;

  // Bumped each time this plugin stops, restarts or removes the container. An exec or a death
  // watch that saw another generation when it started knows the stop was asked for.
  std::uint64_t stop_generation() const { return stop_generation_; }
  bool stop_in_progress() const { return stops_in_progress_ > 0; }

  // Held by a flow for as long as it may stop the container (see expect_stop()).
  class ExpectedStop {
   public:
    explicit ExpectedStop(std::shared_ptr<ComputerRecord> record);
    ~ExpectedStop();
    ExpectedStop(const ExpectedStop&) = delete;
    ExpectedStop& operator=(const ExpectedStop&) = delete;

   private:
    std::shared_ptr<ComputerRecord> record_;
  };
  // Marks a stop of the container as requested by this plugin until the token is dropped, and
  // closes the exec agent's line into it (the next command opens a fresh one).
  std::shared_ptr<ExpectedStop> expect_stop();

  // Runs `callback` once no expected stop is in progress (now, when none is).
  void when_settled(std::function<void()> callback);

  // The engine client's connection_losses() when the container was last seen running. A
  // container found stopped after that count moved on may have been stopped by the engine's
  // own shutdown (dockerd stops its containers when it exits), which is not the computer's
  // death: engine_lost_since_running() tells the two apart.
  void saw_running(std::uint64_t connection_losses) { losses_when_running_ = connection_losses; }
  bool engine_lost_since_running(std::uint64_t connection_losses) const {
    return losses_when_running_ && *losses_when_running_ != connection_losses;
  }

  // A computer removed through this plugin is gone on purpose: its death watch waits for it to
  // be created again instead of reporting a death.
  bool removed_on_purpose() const { return removed_on_purpose_; }
  void mark_removed() { removed_on_purpose_ = true; }
  // Called when this plugin created the computer's container; wakes the waiting death watches.
  void mark_created();
  void when_recreated(std::function<void()> callback);

 private:
  std::uint64_t stop_generation_ = 0;
  int stops_in_progress_ = 0;
  std::vector<std::function<void()>> settled_waiters_;
  bool removed_on_purpose_ = false;
  std::optional<std::uint64_t> losses_when_running_;
  std::vector<std::function<void()>> recreated_waiters_;
};

class ContainerRecords {
 public:
  explicit ContainerRecords(engine::EngineLoop& loop) : loop_(loop) {}

  // The record of `computer_id`, created on first use.
  const std::shared_ptr<ComputerRecord>& record(const std::string& computer_id);

  // The last live Xfce state seen of `computer_id`, without creating a record.
  std::optional<bool> desktop_enabled_of(const std::string& computer_id) const;

  // Drops every record and queued job (shutdown). Flows still running keep their record alive.
  void clear();

 private:
  engine::EngineLoop& loop_;
  std::unordered_map<std::string, std::shared_ptr<ComputerRecord>> records_;
};

}  // namespace vc::container
