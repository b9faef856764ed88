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
// How much of the output start is kept to recognise the engine's own start failures.
constexpr std::size_t kFirstOutputKept = 512;

}  // namespace

ExecSession::ExecSession(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                         sdk::ExecRequest request, std::string stdin_bytes, Emit emit,
                         Callback<nlohmann::json> done)
    : ctx_(ctx), record_(std::move(record)), request_(std::move(request)),
      stdin_bytes_(std::move(stdin_bytes)), done_(std::move(done)),
      container_(container_name(request_.computer_id)) {
  output_ = std::make_shared<ExecOutput>(
      ctx_.clock, ctx_.log, "exec in container " + container_, std::move(emit),
      request_.output_limit, [this](ExecOutput::Stop why) {
        stop(why == ExecOutput::Stop::kOutputLimit ? StopReason::kOutputLimit
                                                   : StopReason::kHostGone);
      });
}

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
    const OpFailure& failure = exec_id.error();
    if (failure.status == VC_E_CANCELLED || stop_reason_) {
      ended_at_ = std::chrono::steady_clock::now();
      return conclude(std::nullopt);
    }
    if (failure.status == VC_E_COMPUTER_STOPPED ||
        (failure.status == VC_E_NOT_FOUND && !record_->container_id.empty())) {
      return finish(computer_not_running_failure(ctx_, scene()));
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
  if (stop_reason_) return;  // draining after a stop: read and discard
  output_->take(kind == engine::StreamKind::kStdout ? VC_STREAM_STDOUT : VC_STREAM_STDERR, bytes);
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
  // The result goes out once the host has taken every byte of the output.
  std::weak_ptr<ExecSession> weak = weak_from_this();
  output_->when_delivered([weak] {
    if (auto self = weak.lock()) self->read_exit_code();
  });
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
  if (stop_reason_ == StopReason::kCancelled || stop_reason_ == StopReason::kHostGone) {
    return finish(cancelled_failure());
  }
  // A killed command reports 137 (128 + SIGKILL).
  if (stop_reason_ == StopReason::kTimedOut) {
    return finish(exec_result(exit_code.value_or(137), "timed_out", elapsed_ms()));
  }
  if (stop_reason_ == StopReason::kOutputLimit) {
    return finish(exec_result(exit_code.value_or(137), "output_limit_exceeded", elapsed_ms()));
  }
  if (!exit_code) return conclude_failed(-1);  // the stream broke or the exec vanished
  if (working_directory_missing(*exit_code)) {
    return finish(OpFailure{VC_E_INVALID_ARGUMENT,
                            "Working directory '" + *request_.working_directory +
                                "' does not exist.",
                            error_details(ctx_.profile, "working_directory_missing", false)});
  }
  if (*exit_code != 0) return conclude_failed(*exit_code);
  finish(exec_result(*exit_code, "exited", elapsed_ms()));
}

void ExecSession::conclude_failed(std::int64_t exit_code) {
  std::string why = stream_error_ ? stream_error_->message : "the engine reported no exit code";
  std::function<void()> kill_leftovers;
  if (!exec_id_.empty()) {
    kill_leftovers = [&ctx = ctx_, exec_id = exec_id_, container = container_] {
      kill_exec_process_group(ctx, exec_id, container, [](KillPath) {});
    };
  }
  conclude_failed_command(ctx_, scene(), exit_code, elapsed_ms(), std::move(why),
                          std::move(kill_leftovers),
                          [self = shared_from_this()](Expected<nlohmann::json> outcome) {
                            self->finish(std::move(outcome));
                          });
}

CommandScene ExecSession::scene() const {
  return CommandScene{record_, request_.computer_id, container_, stop_generation_at_start_};
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
  output_->close();
  auto done = std::move(done_);
  done_ = nullptr;
  done(std::move(outcome));
}

std::int64_t ExecSession::elapsed_ms() const {
  auto end = ended_at_.value_or(std::chrono::steady_clock::now());
  return std::chrono::duration_cast<std::chrono::milliseconds>(end - started_at_).count();
}

}  // namespace vc::container
