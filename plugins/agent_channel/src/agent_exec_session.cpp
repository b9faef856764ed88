// agent_exec_session.cpp — a command through the exec agent, from start frame to result.
#include <vc_agent_channel/agent_exec_session.h>

#include <utility>

namespace vc::agent_channel {
namespace {

// How long the agent may take beyond the command's own timeout to end it, and to answer a
// cancel, before it is taken for stuck.
constexpr std::chrono::seconds kTimeoutSlack{10};
constexpr std::chrono::seconds kCancelSlack{5};

}  // namespace

AgentExecSession::AgentExecSession(ChannelClock& clock, sdk::HostLog log,
                                   std::shared_ptr<ExecAgentChannel> channel,
                                   std::unique_ptr<CommandEnding> ending,
                                   sdk::ExecRequest request, std::string shell,
                                   std::string stdin_bytes, ExecOutput::Emit emit,
                                   Callback<nlohmann::json> done)
    : clock_(clock), log_(log), channel_(std::move(channel)), ending_(std::move(ending)),
      request_(std::move(request)), shell_(std::move(shell)), stdin_bytes_(std::move(stdin_bytes)),
      done_(std::move(done)) {
  output_ = std::make_shared<ExecOutput>(
      clock_, log_, "exec in computer " + request_.computer_id, std::move(emit),
      request_.output_limit, [this](ExecOutput::Stop why) {
        stop(why == ExecOutput::Stop::kOutputLimit ? StopReason::kOutputLimit
                                                   : StopReason::kHostGone);
      });
}

AgentExecSession::~AgentExecSession() = default;

void AgentExecSession::start() {
  keep_alive_ = shared_from_this();
  started_at_ = std::chrono::steady_clock::now();
  ending_->started();

  nlohmann::json start = {{"argv", request_.resolved_argv(shell_)},
                          {"timeout_ms", request_.timeout_ms},
                          {"output_limit", request_.output_limit},
                          {"stdin", !stdin_bytes_.empty()}};
  if (request_.working_directory) start["cwd"] = *request_.working_directory;
  id_ = channel_->start_command(start, stdin_bytes_, events());
  stdin_bytes_.clear();
  stdin_bytes_.shrink_to_fit();

  std::weak_ptr<AgentExecSession> weak = weak_from_this();
  stuck_timer_ = clock_.make_timer();
  stuck_timer_->start(std::chrono::milliseconds(request_.timeout_ms) + kTimeoutSlack, [weak] {
    if (auto self = weak.lock()) self->on_agent_stuck();
  });
}

ExecAgentChannel::CommandEvents AgentExecSession::events() {
  std::weak_ptr<AgentExecSession> weak = weak_from_this();
  ExecAgentChannel::CommandEvents events;
  events.output = [weak](vc_stream stream, std::string_view bytes) {
    auto self = weak.lock();
    if (self && self->done_ && !self->stop_reason_) self->output_->take(stream, bytes);
  };
  events.exited = [weak](const AgentExit& exit) {
    if (auto self = weak.lock()) self->on_exit(exit);
  };
  events.refused = [weak](const std::string& message) {
    if (auto self = weak.lock()) self->on_refused(message);
  };
  events.lost = [weak](const std::string& why) {
    if (auto self = weak.lock()) self->on_lost(why);
  };
  return events;
}

void AgentExecSession::cancel() { stop(StopReason::kCancelled); }

void AgentExecSession::stop(StopReason reason) {
  if (stop_reason_ || done_ == nullptr) return;
  stop_reason_ = reason;
  channel_->cancel_command(id_);
  std::weak_ptr<AgentExecSession> weak = weak_from_this();
  stuck_timer_->start(kCancelSlack, [weak] {
    if (auto self = weak.lock()) self->on_agent_stuck();
  });
}

void AgentExecSession::on_exit(const AgentExit& exit) {
  if (done_ == nullptr) return;
  stuck_timer_->stop();
  // The result goes out once the host has taken every byte of the output.
  std::weak_ptr<AgentExecSession> weak = weak_from_this();
  output_->when_delivered([weak, exit] {
    if (auto self = weak.lock()) self->conclude(exit);
  });
}

void AgentExecSession::conclude(const AgentExit& exit) {
  const std::string& outcome = exit.outcome;
  const std::int64_t exit_code = exit.exit_code;
  const std::int64_t duration = exit.duration_ms.value_or(elapsed_ms());
  if (stop_reason_ == StopReason::kCancelled || stop_reason_ == StopReason::kHostGone) {
    return finish(cancelled_failure());
  }
  if (stop_reason_ == StopReason::kOutputLimit || outcome == "output_limit_exceeded") {
    return finish(exec_result(exit_code, "output_limit_exceeded", duration));
  }
  if (outcome == "timed_out") return finish(exec_result(exit_code, "timed_out", duration));
  if (outcome == "start_failed") return conclude_start_failed(exit);
  if (outcome != "exited" || exit_code < 0) {
    return on_lost("the exec agent reported outcome '" + outcome + "'");
  }
  if (exit_code != 0) {
    // The original's death check: the command may have failed because the computer went away.
    return ending_->conclude_failed(exit_code, duration, std::string(),
                                    [self = shared_from_this()](Expected<nlohmann::json> result) {
                                      self->finish(std::move(result));
                                    });
  }
  finish(exec_result(exit_code, "exited", duration));
}

void AgentExecSession::conclude_start_failed(const AgentExit& exit) {
  const std::string& code = exit.error_code;
  if (code == "cwd_missing" && request_.working_directory) {
    return finish(OpFailure{VC_E_INVALID_ARGUMENT,
                            "Working directory '" + *request_.working_directory +
                                "' does not exist.",
                            ending_->error_details("working_directory_missing")});
  }
  finish(OpFailure{code == "cwd_unusable" ? VC_E_INVALID_ARGUMENT : VC_E_FAILED,
                   "The command could not start in computer " + request_.computer_id + ": " +
                       exit.error,
                   ending_->error_details("exec_start_failed")});
}

void AgentExecSession::on_refused(const std::string& message) {
  finish(OpFailure{VC_E_FAILED,
                   "The exec agent of computer " + request_.computer_id +
                       " refused the command: " + message,
                   ending_->error_details("exec_agent_refused")});
}

void AgentExecSession::on_lost(const std::string& why) {
  if (done_ == nullptr) return;
  stuck_timer_->stop();
  if (stop_reason_ == StopReason::kCancelled || stop_reason_ == StopReason::kHostGone) {
    return finish(cancelled_failure());
  }
  ending_->conclude_failed(-1, elapsed_ms(), why,
                           [self = shared_from_this()](Expected<nlohmann::json> result) {
                             self->finish(std::move(result));
                           });
}

void AgentExecSession::on_agent_stuck() {
  if (done_ == nullptr) return;
  log_.warn("The exec agent of computer " + request_.computer_id +
            " did not end a command in time; it is restarted");
  // reset() tells every command of the channel, this one included (on_lost).
  channel_->reset("the exec agent did not end the command in time and was restarted",
                  /*kill=*/true);
}

void AgentExecSession::finish(Expected<nlohmann::json> outcome) {
  if (done_ == nullptr) return;
  auto keep = std::move(keep_alive_);  // released when this call returns
  if (stuck_timer_) stuck_timer_->stop();
  output_->close();
  channel_->forget(id_);
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(outcome));
}

std::int64_t AgentExecSession::elapsed_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               started_at_)
      .count();
}

}  // namespace vc::agent_channel
