// exec_agent_channel.h — the open line to one computer's exec agent (docs/exec-agent.md).
//
// One long-lived process runs vc-exec-agent inside the computer (agent_connection.h); commands
// go down its stdin as frames (exec_agent/frames.h) and their output, exit and errors come
// back on its stdout, several at once, told apart by command id:
//
//   closed --open()--> starting: the agent started, waiting for its hello (10 s)
//     - in an incarnation of the computer no agent has answered in yet, the program is copied
//       in first (installing);
//     - the program is missing, or says another version: copied in, started again, once per
//       open();
//     - it still cannot run (a read-only root, another architecture, no hello): unusable for
//       this incarnation, and open() fails with VC_E_UNSUPPORTED and the reason (the caller
//       falls back to the engine's exec, or fails, as --exec-agent says);
//   --hello--> open: commands sent as they come --stream ends / protocol error / reset()-->
//   closed: every command in flight hears lost(); the next open() starts a fresh agent.
//
// The end of a command's stdin is a frame, so an engine that cannot close a stream's stdin
// alone (the Kubernetes API before v5.channel.k8s.io) carries the protocol as well.
//
// Thread rule: the channel's thread (channel_clock.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/vc_op.h>
#include <vc_exec_agent/frames.h>

#include "agent_connection.h"
#include "agent_process.h"
#include "channel_clock.h"
#include "exec_agent_documents.h"

namespace vc::agent_channel {

class ExecAgentChannel : public std::enable_shared_from_this<ExecAgentChannel> {
 public:
  // What one command hears from the agent; exactly one of exited, refused or lost ends it.
  struct CommandEvents {
    std::function<void(vc_stream stream, std::string_view bytes)> output;
    std::function<void(const AgentExit& exit)> exited;
    std::function<void(const std::string& message)> refused;  // the agent's error frame
    std::function<void(const std::string& why)> lost;          // the channel ended first
  };

  struct Options {
    // Reads the program when it must be copied in (load_exec_agent_program): read from disk
    // each time a computer needs a copy, not kept in memory.
    std::function<Expected<std::string>()> program;
    // Whether commands fall back to the engine's exec when the agent cannot run (the log says
    // so).
    bool falls_back = true;
  };

  static std::shared_ptr<ExecAgentChannel> make(std::shared_ptr<AgentComputer> computer,
                                                ChannelClock& clock, sdk::HostLog log,
                                                Options options);
  ~ExecAgentChannel();

  ExecAgentChannel(const ExecAgentChannel&) = delete;
  ExecAgentChannel& operator=(const ExecAgentChannel&) = delete;

  // `ready` runs once the agent has answered (now, when it has), or with why it cannot:
  // VC_E_UNSUPPORTED when the agent cannot run in this computer, or the failure of the attempt
  // itself (the computer is not running, the engine is unreachable, the open was cancelled).
  void open(Callback<Done> ready);

  // Sends a start frame (and the stdin frames) while open; returns the command's id.
  std::uint32_t start_command(const nlohmann::json& start, std::string_view stdin_bytes,
                              CommandEvents events);
  // Asks the agent to stop the command; its exit frame follows.
  void cancel_command(std::uint32_t id);
  // The command's session has ended: drop its events.
  void forget(std::uint32_t id);

  // Ends the agent (its stdin closed; `kill` also ends its process group) and tells every
  // command in flight why.
  void reset(const std::string& why, bool kill);

  bool is_open() const { return state_ == State::kOpen; }
  const std::string& computer_id() const { return computer_->computer_id(); }

  // Use make().
  ExecAgentChannel(std::shared_ptr<AgentComputer> computer, ChannelClock& clock,
                   sdk::HostLog log, Options options);

 private:
  enum class State { kClosed, kStarting, kInstalling, kOpen };

  void connect();
  void start_agent();
  void on_stdout(std::string_view bytes);
  void on_frame(exec_agent::Frame frame);
  void on_command_frame(exec_agent::Frame frame);
  void on_hello(const std::string& payload);
  void on_start_failed(const StartFailure& failure);
  void on_ended(const AgentStreamEnd& end);
  void install(const std::string& reason);
  void became_unusable(const std::string& reason);
  void finish_open(const Expected<Done>& outcome);
  void write(std::string bytes);

  const std::shared_ptr<AgentComputer> computer_;
  ChannelClock& clock_;
  const sdk::HostLog log_;
  const Options options_;
  std::shared_ptr<AgentConnection> connection_;

  State state_ = State::kClosed;
  std::vector<Callback<Done>> waiting_;
  std::shared_ptr<CancelScope> install_scope_;
  exec_agent::FrameReader reader_;
  bool installed_this_open_ = false;
  std::string answered_in_;  // the incarnation an agent last said hello in
  // The incarnation the agent was found unusable in, and why: decided once, logged once.
  std::string unusable_in_;
  std::string unusable_reason_;

  std::uint32_t next_id_ = 1;
  std::unordered_map<std::uint32_t, CommandEvents> commands_;
};

}  // namespace vc::agent_channel
