// exec_session.h — one command run in a computer: the exec's whole life on the EngineLoop.
//
//   create exec (stdin, stdout, stderr attached; no TTY) -> hijacked start -> stdin written and
//   half-closed (no stdin: closed at once, so the command sees EOF) -> output frames emitted as
//   raw bytes -> end of stream -> exit code from exec inspect.
//
// Limits are enforced here, not by the engine:
//  - timeout_ms: a timer started when the session starts;
//  - output_limit: combined stdout+stderr bytes; bytes up to the limit are delivered, the rest
//    is read and discarded (never stop reading: a writer blocked on a full pipe would freeze
//    instead of dying), and emit() answering VC_NOTE_TRUNCATED counts the same.
// On either, or on cancel, the command's whole process group is killed (process_group_kill.h),
// the stream is drained for a short grace period, then closed.
//
// A command that exits while children it backgrounded keep the output stream open (Docker
// keeps it open until they close it) is noticed by polling exec inspect: the session then
// ends with the command's exit code instead of waiting for the children.
//
// EngineLoop thread only.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <vc-backend-1/vc_op.h>
#include <vc_engine/engine_loop.h>
#include <vc_engine/exec_stream.h>

#include "cancel_scope.h"
#include "computer_registry.h"
#include "container_calls.h"
#include "exec_request.h"

namespace vc::container {

class ExecSession : public std::enable_shared_from_this<ExecSession> {
 public:
  // Delivers output bytes to the op (vc_op.emit semantics).
  using Emit = std::function<vc_status(vc_stream stream, std::string_view bytes)>;

  ExecSession(BackendContext& ctx, std::shared_ptr<ComputerRecord> record, ExecRequest request,
              std::string stdin_bytes, Emit emit, Callback<nlohmann::json> done);
  ~ExecSession();

  ExecSession(const ExecSession&) = delete;
  ExecSession& operator=(const ExecSession&) = delete;

  void start();
  // Kills the command and completes with VC_E_CANCELLED (unless it already finished).
  void cancel();

 private:
  enum class StopReason { kTimedOut, kOutputLimit, kCancelled, kHostGone };

  void on_exec_created(Expected<std::string> exec_id);
  void open_stream();
  void on_output(engine::StreamKind kind, std::string_view bytes);
  void deliver(vc_stream stream, std::string_view bytes);
  void flush_pending();
  void stop(StopReason reason);
  void poll_main_process();
  void on_stream_end(engine::Result<void> end);
  void read_exit_code();
  void conclude(std::optional<std::int64_t> exit_code);
  void check_container_after_failure(std::int64_t exit_code, int looks_left);
  void conclude_not_running(const OpFailure& why);
  OpFailure engine_lost(const std::string& why) const;
  void finish(Expected<nlohmann::json> outcome);
  std::int64_t elapsed_ms() const;
  bool working_directory_missing(std::int64_t exit_code) const;

  BackendContext& ctx_;
  std::shared_ptr<ComputerRecord> record_;
  ExecRequest request_;
  std::string stdin_bytes_;
  Emit emit_;
  Callback<nlohmann::json> done_;
  std::string container_;
  std::shared_ptr<CancelScope> scope_ = CancelScope::make();
  // The session owns itself from start() to finish(): between engine calls only timers refer
  // to it, and they hold it weakly.
  std::shared_ptr<ExecSession> keep_alive_;

  std::chrono::steady_clock::time_point started_at_;
  std::optional<std::chrono::steady_clock::time_point> ended_at_;
  std::uint64_t stop_generation_at_start_ = 0;
  std::string exec_id_;
  std::unique_ptr<engine::ExecStream> stream_;
  bool stream_ended_ = false;
  bool stream_aborted_by_us_ = false;
  std::optional<engine::EngineError> stream_error_;
  std::optional<StopReason> stop_reason_;
  std::optional<std::int64_t> main_exit_code_;  // seen by polling while the stream stayed open
  bool kill_retried_ = false;

  std::uint64_t output_total_ = 0;
  std::string first_output_;  // the start of the output, to recognise engine start failures
  std::deque<std::pair<vc_stream, std::string>> pending_;  // refused with VC_E_BACKPRESSURE
  std::uint64_t pending_bytes_ = 0;

  std::unique_ptr<engine::LoopTimer> deadline_timer_;
  std::unique_ptr<engine::LoopTimer> grace_timer_;
  std::unique_ptr<engine::LoopTimer> poll_timer_;
  std::unique_ptr<engine::LoopTimer> retry_timer_;
};

}  // namespace vc::container
