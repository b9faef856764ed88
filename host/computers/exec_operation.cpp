// exec_operation.cpp — collecting an exec op's streamed output into an ExecResult, within the
// host's deadline for it.
#include "computers/exec_operation.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>
#include <utility>

#include <spdlog/spdlog.h>
#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

#include "computers/exec_watchdog.h"
#include "computers/operation_documents.h"
#include "backend_proxy/status_text.h"

namespace vc::computers {
namespace {

// Output of one command as it streams in. Shared by the emit and completion callbacks. The
// backend proxy already cut it at the output limit (OpCallbacks::output_limit) and reports a
// cut command as output_limit_exceeded, so everything that arrives is kept.
class OutputCollector {
 public:
  void add(vc_stream stream, std::string_view bytes) {
    if (stream == VC_STREAM_STDOUT) stdout_.append(bytes);
    if (stream == VC_STREAM_STDERR) stderr_.append(bytes);
    // Progress events mean nothing for a command.
  }

  std::string take_stdout() { return std::move(stdout_); }
  std::string take_stderr() { return std::move(stderr_); }

 private:
  std::string stdout_;
  std::string stderr_;
};

int64_t milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

Expected<ExecResult> assemble_result(const Expected<Json>& document, OutputCollector& output,
                                     std::chrono::steady_clock::time_point start,
                                     const ComputerInfo& computer) {
  if (!document.ok()) return document.error();
  auto completion = read_exec_result(document.value());
  if (!completion.ok()) return completion.error();
  ExecResult result;
  result.exit_code = completion.value().exit_code;
  result.outcome = completion.value().outcome;
  result.duration_ms = completion.value().duration_ms.value_or(milliseconds_since(start));
  result.stdout_bytes = output.take_stdout();
  result.stderr_bytes = output.take_stderr();
  result.computer = computer;
  return result;
}

// One exec the caller waits for. The backend's completion and the watchdog race to answer;
// whichever comes second finds the caller answered.
struct PendingExec {
  std::function<void(Expected<ExecResult>)> done;
  std::unique_ptr<ExecWatchdog> watchdog;
  CancelHandle operation;
  std::string backend_name;
  bool answered = false;
};

// Saturates instead of overflowing, as the request document's timeout_ms does.
std::chrono::milliseconds timeout_in_milliseconds(int64_t timeout_s) {
  using Milliseconds = std::chrono::milliseconds;
  constexpr int64_t kLargest = std::numeric_limits<Milliseconds::rep>::max() / 1000;
  return std::chrono::seconds(std::clamp<int64_t>(timeout_s, 0, kLargest));
}

// "The docker backend did not finish the command within its 2 s timeout (and 10 s more); ..."
std::string abandoned_exec_message(const std::string& backend_name, int64_t timeout_s) {
  return "The " + backend_name + " backend did not finish the command within its " +
         std::to_string(timeout_s) + " s timeout (and " + std::to_string(kExecGrace.count()) +
         " s more); the server stopped waiting for it. The command may still be running in the "
         "computer.";
}

// VC_E_TIMEOUT, not VC_E_FAILED: this is the status the SDK gives a backend that did not answer
// in time (as for tool_instructions at startup), unlike the command's own timeout, which is a
// result with the outcome timed_out. The command may not have failed at all.
void give_up(PendingExec& pending, int64_t timeout_s) {
  if (pending.answered) return;
  pending.answered = true;
  spdlog::warn(
      "plugin misbehaving: the {} backend's exec did not finish within its {} s timeout and "
      "{} s more; cancelling it and no longer waiting for it",
      pending.backend_name, timeout_s, kExecGrace.count());
  if (pending.operation) pending.operation->cancel();
  auto done = std::move(pending.done);
  pending.done = nullptr;
  done(Failure{VC_E_TIMEOUT, abandoned_exec_message(pending.backend_name, timeout_s)});
}

}  // namespace

CancelHandle run_exec_operation(backend_proxy::Backend& backend, const ComputerInfo& computer,
                                const std::string& shell, const ExecRequest& request,
                                std::function<void(Expected<ExecResult>)> done) {
  auto output = std::make_shared<OutputCollector>();
  auto pending = std::make_shared<PendingExec>();
  pending->done = std::move(done);
  pending->backend_name = backend.info().name;
  auto start = std::chrono::steady_clock::now();
  backend_proxy::OpCallbacks callbacks;
  callbacks.output_limit = request.output_limit;
  callbacks.on_emit = [output, pending](vc_stream stream, std::string_view bytes) {
    if (!pending->answered) output->add(stream, bytes);
  };
  callbacks.on_complete = [output, start, computer, pending](Expected<Json> document) {
    pending->watchdog.reset();
    if (pending->answered) {
      spdlog::warn(
          "plugin misbehaving: the {} backend's exec ended ({}) after the server had stopped "
          "waiting for it; dropped",
          pending->backend_name,
          document.ok() ? "with a result" : backend_proxy::status_name(document.error().status));
      return;
    }
    pending->answered = true;
    auto finished = std::move(pending->done);
    pending->done = nullptr;
    finished(assemble_result(document, *output, start, computer));
  };
  pending->operation =
      backend.start(backend_proxy::Operation::exec, exec_request(computer.computer_id, shell, request),
                    std::move(callbacks), request.stdin_data);
  // A backend without a loop (a test double) gets no deadline: there is no timer to keep one.
  if (uv_loop_t* loop = backend.loop()) {
    const int64_t timeout_s = request.timeout_s;
    pending->watchdog = ExecWatchdog::start(
        loop, &backend, computer.computer_id, timeout_in_milliseconds(timeout_s), kExecGrace,
        [weak = std::weak_ptr<PendingExec>(pending), timeout_s] {
          if (auto live = weak.lock()) give_up(*live, timeout_s);
        });
  }
  return pending->operation;
}

}  // namespace vc::computers
