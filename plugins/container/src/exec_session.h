// exec_session.h — one command run in a computer: the exec's whole life on the EngineLoop.
//
//   create exec (stdin, stdout, stderr attached; no TTY) -> hijacked start -> stdin written and
//   half-closed (no stdin: closed at once, so the command sees EOF) -> output frames emitted as
//   raw bytes -> end of stream -> exit code from exec inspect.
//
// Limits are enforced here, not by the engine:
//  - timeout_ms: a timer started when the session starts;
//  - output_limit: through ExecOutput (exec_output.h); past the limit the output is read and
//    discarded (never stop reading: a writer blocked on a full pipe would freeze instead of
//    dying).
// On either, or on cancel, the command's whole process group is killed (process_group_kill.h),
// the stream is drained for a short grace period, then closed. How its end becomes a result:
// exec_conclusion.h.
//
// A command that exits while children it backgrounded keep the output stream open (Docker
// keeps it open until they close it) is noticed by polling exec inspect: the session then
// ends with the command's exit code instead of waiting for the children.
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

#include <vc-backend-1/vc_op.h>
#include <vc_agent_channel/exec_output.h>
#include <vc_agent_channel/running_command.h>
#include <vc_engine/engine_loop.h>
#include <vc_engine/exec_stream.h>

#include "cancel_scope.h"
#include "container_calls.h"
#include "container_records.h"
#include "exec_conclusion.h"
#include <vc-backend-1/cpp/requests.h>

namespace vc::container {

using agent_channel::ExecOutput;
using agent_channel::RunningCommand;

class ExecSession : public RunningCommand, public std::enable_shared_from_this<ExecSession> {
 public:
  using Emit = ExecOutput::Emit;

  ExecSession(BackendContext& ctx, std::shared_ptr<ComputerRecord> record, sdk::ExecRequest request,
              std::string stdin_bytes, Emit emit, Callback<nlohmann::json> done);
  ~ExecSession() override;

  ExecSession(const ExecSession&) = delete;
  ExecSession& operator=(const ExecSession&) = delete;

  void start() override;
  void cancel() override;

 private:
  enum class StopReason { kTimedOut, kOutputLimit, kCancelled, kHostGone };

  void on_exec_created(Expected<std::string> exec_id);
  void open_stream();
  void on_output(engine::StreamKind kind, std::string_view bytes);
  void stop(StopReason reason);
  void poll_main_process();
  void on_stream_end(engine::Result<void> end);
  void read_exit_code();
  void conclude(std::optional<std::int64_t> exit_code);
  void conclude_failed(std::int64_t exit_code);
  CommandScene scene() const;
  void finish(Expected<nlohmann::json> outcome);
  std::int64_t elapsed_ms() const;
  bool working_directory_missing(std::int64_t exit_code) const;

  BackendContext& ctx_;
  std::shared_ptr<ComputerRecord> record_;
  sdk::ExecRequest request_;
  std::string stdin_bytes_;
  std::shared_ptr<ExecOutput> output_;
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

  std::string first_output_;  // the start of the output, to recognise engine start failures

  std::unique_ptr<engine::LoopTimer> deadline_timer_;
  std::unique_ptr<engine::LoopTimer> grace_timer_;
  std::unique_ptr<engine::LoopTimer> poll_timer_;
};

}  // namespace vc::container
