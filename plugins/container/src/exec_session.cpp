// exec_session.cpp — one exec, from create to exit code, with timeout, limit and kill.
#include "exec_session.h"

#include <algorithm>
#include <utility>

#include "computer_info.h"
#include "computer_naming.h"
#include "engine_failure.h"
#include "helper_exec.h"
#include "process_group_kill.h"

namespace vc::container {
namespace {

// After the kill, the stream gets this long to end by itself before it is closed.
constexpr std::chrono::milliseconds kDrainGrace{2000};
// When the command has exited but the stream stays open (children it backgrounded hold it),
// this much more output is awaited before the stream is closed.
constexpr std::chrono::milliseconds kExitedDrainGrace{200};
// Exec inspect polling for that case: first after this, then at this interval.
constexpr std::chrono::milliseconds kMainProcessPollInterval{500};
// Retry delay when the host answers VC_E_BACKPRESSURE.
constexpr std::chrono::milliseconds kBackpressureRetry{5};
// Output the host has refused (backpressure) is held up to this much; beyond it the command
// is stopped as if it had hit the output limit rather than buffered without bound.
constexpr std::uint64_t kMaxPendingBytes = 64ull << 20;
// How much of the output start is kept to recognise the engine's own start failures.
constexpr std::size_t kFirstOutputKept = 512;
// Looks at the container after a command died of a signal, and the pause between them.
constexpr int kDeathChecks = 4;
constexpr std::chrono::milliseconds kDeathRecheckDelay{200};

}  // namespace

ExecSession::ExecSession(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                         ExecRequest request, std::string stdin_bytes, Emit emit,
                         Callback<nlohmann::json> done)
    : ctx_(ctx), record_(std::move(record)), request_(std::move(request)),
      stdin_bytes_(std::move(stdin_bytes)), emit_(std::move(emit)), done_(std::move(done)),
      container_(container_name(request_.computer_id)) {}

ExecSession::~ExecSession() = default;

void ExecSession::start() {
  keep_alive_ = shared_from_this();
  started_at_ = std::chrono::steady_clock::now();
  stop_generation_at_start_ = record_->stop_generation();
  std::weak_ptr<ExecSession> weak = weak_from_this();

  deadline_timer_ = std::make_unique<engine::LoopTimer>(ctx_.loop);
  deadline_timer_->start(std::chrono::milliseconds(request_.timeout_ms), [weak] {
    if (auto self = weak.lock()) self->stop(StopReason::kTimedOut);
  });

  nlohmann::json body = {{"AttachStdin", true}, {"AttachStdout", true}, {"AttachStderr", true},
                         {"Tty", false}, {"Cmd", request_.resolved_argv(record_->shell)}};
  if (request_.working_directory) body["WorkingDir"] = *request_.working_directory;
  create_exec(ctx_, scope_, container_, body, [self = shared_from_this()](Expected<std::string> id) {
    self->on_exec_created(std::move(id));
  });
}

void ExecSession::cancel() { stop(StopReason::kCancelled); }

void ExecSession::on_exec_created(Expected<std::string> exec_id) {
  if (!exec_id.ok()) {
    const OpFailure& failure = exec_id.failure();
    if (failure.status == VC_E_CANCELLED || stop_reason_) {
      ended_at_ = std::chrono::steady_clock::now();
      return conclude(std::nullopt);
    }
    if (failure.status == VC_E_COMPUTER_STOPPED ||
        (failure.status == VC_E_NOT_FOUND && !record_->container_id.empty())) {
      return conclude_not_running(failure);
    }
    return finish(failure);
  }
  exec_id_ = exec_id.value();
  record_->saw_running(ctx_.client.connection_losses());  // an exec is only created in one
  if (stop_reason_) {
    // Timed out or cancelled while the exec was being created: it never started.
    ended_at_ = std::chrono::steady_clock::now();
    return conclude(std::nullopt);
  }
  open_stream();
}

void ExecSession::open_stream() {
  std::weak_ptr<ExecSession> weak = weak_from_this();
  engine::ExecStartOptions options;
  options.tty = false;
  engine::ExecStreamCallbacks callbacks;
  callbacks.on_output = [weak](engine::StreamKind kind, std::string_view bytes) {
    if (auto self = weak.lock()) self->on_output(kind, bytes);
  };
  // The end callback owns the session: the stream always ends (EOF, error, abort or loop stop).
  callbacks.on_end = [self = shared_from_this()](engine::Result<void> end) {
    self->on_stream_end(std::move(end));
  };
  stream_ = ctx_.client.start_exec(exec_id_, options, std::move(callbacks));
  if (!stdin_bytes_.empty()) stream_->write_stdin(std::move(stdin_bytes_));
  stdin_bytes_.clear();
  stream_->close_stdin();

  poll_timer_ = std::make_unique<engine::LoopTimer>(ctx_.loop);
  poll_timer_->start(kMainProcessPollInterval, [weak] {
    if (auto self = weak.lock()) self->poll_main_process();
  });
}

void ExecSession::on_output(engine::StreamKind kind, std::string_view bytes) {
  if (done_ == nullptr) return;
  if (first_output_.size() < kFirstOutputKept) {
    first_output_.append(bytes.substr(0, kFirstOutputKept - first_output_.size()));
  }
  const std::uint64_t before = output_total_;
  output_total_ += bytes.size();
  if (stop_reason_) return;  // draining after a stop: read and discard

  vc_stream stream = kind == engine::StreamKind::kStdout ? VC_STREAM_STDOUT : VC_STREAM_STDERR;
  const std::uint64_t limit = request_.output_limit;
  if (limit != 0 && output_total_ > limit) {
    // Deliver what fits under the limit, then stop the command.
    const std::uint64_t room = before < limit ? limit - before : 0;
    if (room > 0) deliver(stream, bytes.substr(0, static_cast<std::size_t>(room)));
    return stop(StopReason::kOutputLimit);
  }
  deliver(stream, bytes);
}

void ExecSession::deliver(vc_stream stream, std::string_view bytes) {
  if (bytes.empty()) return;
  if (pending_.empty()) {
    vc_status status = emit_(stream, bytes);
    if (status == VC_OK) return;
    if (status == VC_NOTE_TRUNCATED) return stop(StopReason::kOutputLimit);
    if (status != VC_E_BACKPRESSURE) return stop(StopReason::kHostGone);
  }
  // Keep the order: once something waits, everything after it waits too.
  pending_.emplace_back(stream, std::string(bytes));
  pending_bytes_ += bytes.size();
  if (pending_bytes_ > kMaxPendingBytes) {
    ctx_.log.warn("exec in container " + container_ + ": the host stopped taking output; "
                  "stopping the command");
    return stop(StopReason::kOutputLimit);
  }
  if (!retry_timer_) retry_timer_ = std::make_unique<engine::LoopTimer>(ctx_.loop);
  if (!retry_timer_->active()) {
    std::weak_ptr<ExecSession> weak = weak_from_this();
    retry_timer_->start(kBackpressureRetry, [weak] {
      if (auto self = weak.lock()) self->flush_pending();
    });
  }
}

void ExecSession::flush_pending() {
  while (!pending_.empty() && done_ != nullptr) {
    auto& [stream, bytes] = pending_.front();
    vc_status status = emit_(stream, bytes);
    if (status == VC_E_BACKPRESSURE) {
      std::weak_ptr<ExecSession> weak = weak_from_this();
      retry_timer_->start(kBackpressureRetry, [weak] {
        if (auto self = weak.lock()) self->flush_pending();
      });
      return;
    }
    pending_bytes_ -= bytes.size();
    pending_.pop_front();
    if (status == VC_NOTE_TRUNCATED) stop(StopReason::kOutputLimit);
    if (status != VC_OK && status != VC_NOTE_TRUNCATED) stop(StopReason::kHostGone);
  }
  // The stream may have ended while output waited: the result can go out now.
  if (pending_.empty() && stream_ended_) read_exit_code();
}

void ExecSession::stop(StopReason reason) {
  if (stop_reason_ || done_ == nullptr) return;
  stop_reason_ = reason;
  if (deadline_timer_) deadline_timer_->stop();
  if (exec_id_.empty()) {
    // Still creating the exec: abandon the call; on_exec_created concludes.
    scope_->cancel();
    return;
  }
  if (stream_ended_) return;  // the command is over already; on_stream_end concludes
  std::weak_ptr<ExecSession> weak = weak_from_this();
  kill_exec_process_group(ctx_, exec_id_, container_, [weak](KillPath) {
    auto self = weak.lock();
    if (!self || self->stream_ended_) return;
    self->grace_timer_ = std::make_unique<engine::LoopTimer>(self->ctx_.loop);
    self->grace_timer_->start(kDrainGrace, [weak] {
      auto session = weak.lock();
      if (!session || session->stream_ended_ || !session->stream_) return;
      if (!session->kill_retried_) {
        // The first kill may have raced the process's start (no PID yet): try once more.
        session->kill_retried_ = true;
        kill_exec_process_group(session->ctx_, session->exec_id_, session->container_,
                                [](KillPath) {});
      }
      session->stream_aborted_by_us_ = true;
      session->stream_->abort();
    });
  });
}

void ExecSession::poll_main_process() {
  if (stream_ended_ || stop_reason_ || exec_id_.empty()) return;
  std::weak_ptr<ExecSession> weak = weak_from_this();
  inspect_exec(ctx_, nullptr, exec_id_, 1, [weak](Expected<ExecState> state) {
    auto self = weak.lock();
    if (!self || self->stream_ended_ || self->stop_reason_) return;
    if (state.ok() && !state.value().running && state.value().exit_code) {
      // The command is over but something it started still holds the output open.
      self->main_exit_code_ = state.value().exit_code;
      self->grace_timer_ = std::make_unique<engine::LoopTimer>(self->ctx_.loop);
      self->grace_timer_->start(kExitedDrainGrace, [weak] {
        auto session = weak.lock();
        if (!session || session->stream_ended_ || !session->stream_) return;
        session->stream_aborted_by_us_ = true;
        session->stream_->abort();
      });
      return;
    }
    self->poll_timer_->start(kMainProcessPollInterval, [weak] {
      if (auto session = weak.lock()) session->poll_main_process();
    });
  });
}

void ExecSession::on_stream_end(engine::Result<void> end) {
  stream_ended_ = true;
  ended_at_ = std::chrono::steady_clock::now();
  if (!end.ok() && !(stream_aborted_by_us_ && end.error().kind == engine::EngineErrorKind::kCancelled)) {
    stream_error_ = end.error();
  }
  if (deadline_timer_) deadline_timer_->stop();
  if (poll_timer_) poll_timer_->stop();
  if (grace_timer_) grace_timer_->stop();
  stream_.reset();
  if (pending_.empty()) read_exit_code();
  // else flush_pending() reads the exit code once the host has taken the rest
}

void ExecSession::read_exit_code() {
  if (done_ == nullptr) return;
  if (stream_error_ && stream_error_->kind == engine::EngineErrorKind::kCancelled) {
    // The EngineLoop is stopping (or the host cancelled us mid-stream).
    return conclude(main_exit_code_);
  }
  inspect_exec(ctx_, nullptr, exec_id_, 50, [self = shared_from_this()](Expected<ExecState> state) {
    std::optional<std::int64_t> exit_code = self->main_exit_code_;
    if (state.ok() && state.value().exit_code) exit_code = state.value().exit_code;
    self->conclude(exit_code);
  });
}

void ExecSession::conclude(std::optional<std::int64_t> exit_code) {
  if (done_ == nullptr) return;
  auto result = [this](std::int64_t code, const char* outcome) {
    return nlohmann::json{{"exit_code", code}, {"outcome", outcome}, {"duration_ms", elapsed_ms()}};
  };
  if (stop_reason_ == StopReason::kCancelled || stop_reason_ == StopReason::kHostGone) {
    return finish(cancelled_failure());
  }
  // A killed command reports 137 (128 + SIGKILL).
  if (stop_reason_ == StopReason::kTimedOut) return finish(result(exit_code.value_or(137), "timed_out"));
  if (stop_reason_ == StopReason::kOutputLimit) {
    return finish(result(exit_code.value_or(137), "output_limit_exceeded"));
  }
  if (!exit_code) {
    // No exit code: the stream broke or the exec vanished; is the computer still there?
    return check_container_after_failure(-1, kDeathChecks);
  }
  if (working_directory_missing(*exit_code)) {
    return finish(OpFailure{VC_E_INVALID_ARGUMENT,
                            "Working directory '" + *request_.working_directory +
                                "' does not exist.",
                            error_details(ctx_.profile, "working_directory_missing", false)});
  }
  if (*exit_code != 0) return check_container_after_failure(*exit_code, kDeathChecks);
  finish(result(*exit_code, "exited"));
}

// The original's death check: a command that failed may have failed because the computer
// went away. Inspect the container; if it is not running the command's result is not the
// answer, the computer's death is. A container being killed takes the engine a moment to
// notice after its processes are gone, so a command that died of a signal (exit code >= 128,
// or none at all) gets a few more looks before it counts as an ordinary failure.
void ExecSession::check_container_after_failure(std::int64_t exit_code, int looks_left) {
  inspect_container(
      ctx_, nullptr, container_,
      [self = shared_from_this(), exit_code, looks_left](Expected<std::optional<nlohmann::json>> r) {
        if (!r.ok() && r.failure().status == VC_E_UNAVAILABLE) {
          // The engine itself is gone (restarting, stopped): that says nothing about the
          // computer, so it is not reported as the computer's death.
          return self->finish(self->engine_lost(r.failure().message));
        }
        bool running = r.ok() && r.value() && is_running(*r.value());
        if (!running) {
          return self->conclude_not_running(
              OpFailure{VC_E_COMPUTER_DIED, "container is not running", nullptr});
        }
        const bool killed = exit_code < 0 || exit_code >= 128;
        if (killed && looks_left > 1) {
          std::weak_ptr<ExecSession> weak = self;
          bool posted = self->ctx_.loop.post_after(kDeathRecheckDelay, [weak, exit_code, looks_left] {
            if (auto session = weak.lock()) {
              session->check_container_after_failure(exit_code, looks_left - 1);
            }
          });
          if (posted) return;
        }
        if (exit_code < 0) {
          std::string why = self->stream_error_ ? self->stream_error_->message
                                                : "the engine reported no exit code";
          // Nobody can read the command's output any more: it must not go on running unseen.
          if (!self->exec_id_.empty()) {
            kill_exec_process_group(self->ctx_, self->exec_id_, self->container_, [](KillPath) {});
          }
          return self->finish(OpFailure{VC_E_FAILED,
                                        "Lost the command's output stream in container " +
                                            self->container_ + ": " + why + ".",
                                        error_details(self->ctx_.profile, "exec_stream_lost", true)});
        }
        self->finish(nlohmann::json{{"exit_code", exit_code},
                                    {"outcome", "exited"},
                                    {"duration_ms", self->elapsed_ms()}});
      });
}

void ExecSession::conclude_not_running(const OpFailure& why) {
  const bool stopped_by_us =
      record_->stop_generation() != stop_generation_at_start_ || record_->stop_in_progress();
  const std::string id = record_->container_id.empty() ? container_
                                                       : short_container_id(record_->container_id);
  if (!stopped_by_us && record_->engine_lost_since_running(ctx_.client.connection_losses())) {
    return finish(engine_lost("the " + ctx_.profile.engine_display_name +
                              " stopped the computer's container while it was away"));
  }
  if (stopped_by_us) {
    return finish(OpFailure{VC_E_COMPUTER_STOPPED,
                            "Sandbox has been stopped: computer '" + request_.computer_id +
                                "' was restarted, reset or removed while the command ran.",
                            error_details(ctx_.profile, "computer_stopped", true)});
  }
  (void)why;
  finish(OpFailure{VC_E_COMPUTER_DIED, "Sandbox " + id + " died during command execution",
                   error_details(ctx_.profile, "computer_died", false)});
}

// An engine restart is not the computer's death: the command's fate is unknown, the
// computer and its files are not touched, and the host's next call brings it up again.
OpFailure ExecSession::engine_lost(const std::string& why) const {
  return OpFailure{VC_E_UNAVAILABLE,
                   "The " + ctx_.profile.engine_display_name + " at " + ctx_.address +
                       " went away while a command ran in computer '" + request_.computer_id +
                       "' (" + why + "); whether the command finished is unknown. The computer "
                       "and its files are kept: the next call starts it again once the engine "
                       "answers.",
                   error_details(ctx_.profile, "engine_lost", true)};
}

bool ExecSession::working_directory_missing(std::int64_t exit_code) const {
  if (!request_.working_directory) return false;
  const auto& codes = ctx_.profile.exec_start_failure_exit_codes;
  if (std::find(codes.begin(), codes.end(), exit_code) == codes.end()) return false;
  // runc's message: "... chdir to cwd (\"/nope\") set in config.json failed: no such file ..."
  return first_output_.find("chdir to cwd") != std::string::npos;
}

void ExecSession::finish(Expected<nlohmann::json> outcome) {
  if (done_ == nullptr) return;
  auto keep = std::move(keep_alive_);  // released when this call returns
  if (deadline_timer_) deadline_timer_->stop();
  if (poll_timer_) poll_timer_->stop();
  if (grace_timer_) grace_timer_->stop();
  if (retry_timer_) retry_timer_->stop();
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(outcome));
}

std::int64_t ExecSession::elapsed_ms() const {
  auto end = ended_at_.value_or(std::chrono::steady_clock::now());
  return std::chrono::duration_cast<std::chrono::milliseconds>(end - started_at_).count();
}

}  // namespace vc::container
