// exec_agent_channel.h — the open line to one computer's exec agent (docs/exec-agent.md).
//
// One long-lived engine exec runs vc-exec-agent inside the computer; commands go down its
// stdin as frames (exec_agent/frames.h) and their output, exit and errors come back on its
// stdout, several at once, told apart by command id:
//
//   closed --open()--> starting: exec created and started, waiting for the agent's hello (10 s)
//     - in a container no agent has answered in yet, the program is copied in first
//       (installing);
//     - the program is missing, or says another version: copied in, started again, once per
//       open();
//     - it still cannot run (a read-only root, another architecture, no hello): unusable for
//       this container, and open() fails with VC_E_UNSUPPORTED and the reason (the caller falls
//       back to the engine's exec, or fails, as --exec-agent says);
//   --hello--> open: commands sent as they come --stream ends / protocol error / reset()-->
//   closed: every command in flight hears lost(); the next open() starts a fresh agent.
//
// EngineLoop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>
#include <vc-backend-1/vc_op.h>
#include <vc_engine/engine_loop.h>
#include <vc_engine/exec_stream.h>
#include <vc_exec_agent/frames.h>

#include "cancel_scope.h"
#include "container_calls.h"
#include "exec_agent_documents.h"

namespace vc::container {

class ExecAgentChannel : public std::enable_shared_from_this<ExecAgentChannel> {
 public:
  // What one command hears from the agent; exactly one of exited, refused or lost ends it.
  struct CommandEvents {
    std::function<void(vc_stream stream, std::string_view bytes)> output;
    std::function<void(const AgentExit& exit)> exited;
    std::function<void(const std::string& message)> refused;  // the agent's error frame
    std::function<void(const std::string& why)> lost;          // the channel ended first
  };

  // `archive` makes the program's archive when it must be copied in (make_exec_agent_archive).
  ExecAgentChannel(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                   std::function<Expected<std::string>()> archive);
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

 private:
  enum class State { kClosed, kStarting, kInstalling, kOpen };

  void start_agent();
  void on_exec_created(Expected<std::string> exec_id);
  void on_output(engine::StreamKind kind, std::string_view bytes);
  void on_frame(exec_agent::Frame frame);
  void on_hello(const std::string& payload);
  void on_stderr(std::string_view bytes);
  void on_stream_end(engine::Result<void> end);
  void on_start_failed(const std::string& what);
  void install(const std::string& reason);
  void became_unusable(const std::string& reason);
  void finish_open(const Expected<Done>& outcome);
  void close_stream(bool kill);
  void write(std::string bytes);

  // The container id of the computer, as last seen.
  std::string container_id() const;

  BackendContext& ctx_;
  std::weak_ptr<ComputerRecord> record_;  // the record owns this channel
  std::function<Expected<std::string>()> make_archive_;
  const std::string computer_id_;
  const std::string container_;

  State state_ = State::kClosed;
  std::vector<Callback<Done>> waiting_;
  std::shared_ptr<CancelScope> scope_;
  std::string exec_id_;
  std::unique_ptr<engine::ExecStream> stream_;
  std::unique_ptr<engine::LoopTimer> hello_timer_;
  exec_agent::FrameReader reader_;
  std::string stderr_line_;
  std::string early_output_;  // what the engine or the agent said before the hello
  bool installed_this_open_ = false;
  std::string answered_in_container_;  // the container an agent last said hello in
  // The container (full id) the agent was found unusable in, and why: decided once per
  // container, logged once.
  std::string unusable_container_;
  std::string unusable_reason_;

  std::uint32_t next_id_ = 1;
  std::unordered_map<std::uint32_t, CommandEvents> commands_;
};

}  // namespace vc::container
