// exec_operation.cpp — collecting an exec op's streamed output into an ExecResult.
#include "computers/exec_operation.h"

#include <chrono>
#include <memory>
#include <utility>

#include <vc-backend-1/vc_op.h>

#include "computers/operation_documents.h"

namespace vc::computers {
namespace {

// Output of one command as it streams in. Shared by the emit and completion callbacks.
// A limit of 0 means none, as for OpCallbacks::output_limit.
class OutputCollector {
 public:
  explicit OutputCollector(uint64_t limit) : limit_(limit) {}

  void add(vc_stream stream, std::string_view bytes) {
    std::string* target = buffer_for(stream);
    if (target == nullptr) return;  // progress events mean nothing for a command
    total_ += bytes.size();
    if (limit_ != 0 && total_ > limit_) {
      exceeded_ = true;
      return;  // the result will say so; keeping the bytes would only cost memory
    }
    target->append(bytes);
  }

  bool exceeded() const { return exceeded_; }
  std::string take_stdout() { return std::move(stdout_); }
  std::string take_stderr() { return std::move(stderr_); }

 private:
  std::string* buffer_for(vc_stream stream) {
    if (stream == VC_STREAM_STDOUT) return &stdout_;
    if (stream == VC_STREAM_STDERR) return &stderr_;
    return nullptr;
  }

  uint64_t limit_;
  uint64_t total_ = 0;
  bool exceeded_ = false;
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
  if (!document.ok()) return document.failure();
  auto completion = read_exec_result(document.value());
  if (!completion.ok()) return completion.failure();
  ExecResult result;
  result.exit_code = completion.value().exit_code;
  result.outcome = completion.value().outcome;
  if (output.exceeded() && result.outcome == ExecOutcome::exited) {
    result.outcome = ExecOutcome::output_limit_exceeded;
  }
  result.duration_ms = completion.value().duration_ms.value_or(milliseconds_since(start));
  result.stdout_bytes = output.take_stdout();
  result.stderr_bytes = output.take_stderr();
  result.computer = computer;
  return result;
}

}  // namespace

CancelHandle run_exec_operation(plugins::Backend& backend, const ComputerInfo& computer,
                                const std::string& shell, const ExecRequest& request,
                                std::function<void(Expected<ExecResult>)> done) {
  auto output = std::make_shared<OutputCollector>(request.output_limit);
  auto start = std::chrono::steady_clock::now();
  plugins::OpCallbacks callbacks;
  callbacks.output_limit = request.output_limit;
  callbacks.on_emit = [output](vc_stream stream, std::string_view bytes) {
    output->add(stream, bytes);
  };
  callbacks.on_complete = [output, start, computer,
                           done = std::move(done)](Expected<Json> document) {
    done(assemble_result(document, *output, start, computer));
  };
  return backend.start(plugins::Operation::exec, exec_request(computer.computer_id, shell, request),
                       std::move(callbacks), request.stdin_data);
}

}  // namespace vc::computers
