// agent_exec_session.h — one command run through the computer's exec agent
// (exec_agent_channel.h), with the same results as ExecSession gives through the engine's exec.
//
//   start frame (argv, working directory, timeout, output limit) and stdin frames -> output
//   frames delivered through ExecOutput -> exit frame -> the result, after the death check for
//   a command that failed (exec_conclusion.h).
//
// The agent enforces the timeout and the output limit itself (it kills the command's process
// group); the plugin counts the output too (the host's backpressure, VC_NOTE_TRUNCATED) and
// asks the agent to stop the command when it is over. An agent that has not ended the command
// 10 s after its timeout (or 5 s after a cancel) is taken for stuck: the channel is reset and
// the command ends as one whose output stream was lost.
//
// EngineLoop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "exec_agent_channel.h"
#include "exec_conclusion.h"
#include "exec_output.h"
#include <vc-backend-1/cpp/requests.h>
#include "running_command.h"

namespace vc::container {

class AgentExecSession : public RunningCommand,
                         public std::enable_shared_from_this<AgentExecSession> {
 public:
  AgentExecSession(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                   std::shared_ptr<ExecAgentChannel> channel, sdk::ExecRequest request,
                   std::string stdin_bytes, ExecOutput::Emit emit, Callback<nlohmann::json> done);
  ~AgentExecSession() override;

  AgentExecSession(const AgentExecSession&) = delete;
  AgentExecSession& operator=(const AgentExecSession&) = delete;

  void start() override;
  void cancel() override;

 private:
  enum class StopReason { kOutputLimit, kCancelled, kHostGone };

  void stop(StopReason reason);
  void on_exit(const AgentExit& exit);
  void conclude(const AgentExit& exit);
  void on_refused(const std::string& message);
  void on_lost(const std::string& why);
  void on_agent_stuck();
  void finish(Expected<nlohmann::json> outcome);
  std::int64_t elapsed_ms() const;

  BackendContext& ctx_;
  std::shared_ptr<ComputerRecord> record_;
  std::shared_ptr<ExecAgentChannel> channel_;
  sdk::ExecRequest request_;
  std::string stdin_bytes_;
  std::shared_ptr<ExecOutput> output_;
  Callback<nlohmann::json> done_;
  CommandScene scene_;
  std::shared_ptr<AgentExecSession> keep_alive_;  // from start() to finish()

  std::uint32_t id_ = 0;
  std::chrono::steady_clock::time_point started_at_;
  std::optional<StopReason> stop_reason_;
  std::unique_ptr<engine::LoopTimer> stuck_timer_;
};

}  // namespace vc::container
