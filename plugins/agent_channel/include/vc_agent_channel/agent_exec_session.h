// agent_exec_session.h — one command run through the computer's exec agent
// (exec_agent_channel.h), with the same results as the engine's own exec gives.
//
//   start frame (argv, working directory, timeout, output limit) and stdin frames -> output
//   frames delivered through ExecOutput -> exit frame -> the result; a command that failed, or
//   whose output was lost, is concluded by the engine's CommandEnding (the container plugins
//   first look whether the computer died under it).
//
// The agent enforces the timeout and the output limit itself (it kills the command's process
// group); the plugin counts the output too (the host's backpressure, VC_NOTE_TRUNCATED) and
// asks the agent to stop the command when it is over. An agent that has not ended the command
// 10 s after its timeout (or 5 s after a cancel) is taken for stuck: the channel is reset and
// the command ends as one whose output stream was lost.
//
// Thread rule: the channel's thread (channel_clock.h).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/cpp/requests.h>

#include "channel_clock.h"
#include "command_result.h"
#include "exec_agent_channel.h"
#include "exec_output.h"
#include "running_command.h"

namespace vc::agent_channel {

// What the engine's plugin adds to how a command ends.
class CommandEnding {
 public:
  virtual ~CommandEnding() = default;
  // The command is about to start.
  virtual void started() = 0;
  // Concludes a command that exited with `exit_code` != 0, or whose output was lost
  // (`exit_code` < 0; `lost_why` says how): the plain result, or the computer's own fate.
  virtual void conclude_failed(std::int64_t exit_code, std::int64_t duration_ms,
                               std::string lost_why, Callback<nlohmann::json> done) = 0;
  // The details document of a failure (`reason`: "exec_start_failed"...), in the engine's
  // words ({"code": "<engine>.<reason>", "retryable": false}).
  virtual nlohmann::json error_details(std::string_view reason) = 0;
};

class AgentExecSession : public RunningCommand,
                         public std::enable_shared_from_this<AgentExecSession> {
 public:
  // `shell` resolves a request given as a shell command line.
  AgentExecSession(ChannelClock& clock, sdk::HostLog log,
                   std::shared_ptr<ExecAgentChannel> channel,
                   std::unique_ptr<CommandEnding> ending, sdk::ExecRequest request,
                   std::string shell, std::string stdin_bytes, ExecOutput::Emit emit,
                   Callback<nlohmann::json> done);
  ~AgentExecSession() override;

  AgentExecSession(const AgentExecSession&) = delete;
  AgentExecSession& operator=(const AgentExecSession&) = delete;

  void start() override;
  void cancel() override;

 private:
  enum class StopReason { kOutputLimit, kCancelled, kHostGone };

  ExecAgentChannel::CommandEvents events();
  void stop(StopReason reason);
  void on_exit(const AgentExit& exit);
  void conclude(const AgentExit& exit);
  void conclude_start_failed(const AgentExit& exit);
  void on_refused(const std::string& message);
  void on_lost(const std::string& why);
  void on_agent_stuck();
  void finish(Expected<nlohmann::json> outcome);
  std::int64_t elapsed_ms() const;

  ChannelClock& clock_;
  const sdk::HostLog log_;
  std::shared_ptr<ExecAgentChannel> channel_;
  std::unique_ptr<CommandEnding> ending_;
  sdk::ExecRequest request_;
  const std::string shell_;
  std::string stdin_bytes_;
  std::shared_ptr<ExecOutput> output_;
  Callback<nlohmann::json> done_;
  std::shared_ptr<AgentExecSession> keep_alive_;  // from start() to finish()

  std::uint32_t id_ = 0;
  std::chrono::steady_clock::time_point started_at_;
  std::optional<StopReason> stop_reason_;
  std::unique_ptr<ChannelTimer> stuck_timer_;
};

}  // namespace vc::agent_channel
