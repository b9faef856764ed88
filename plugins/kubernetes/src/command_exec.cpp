// command_exec.cpp — one command through the API's exec, with its process group killable.
// Thread rule: see command_exec.h.
#include "command_exec.h"

#include <chrono>
#include <cstdlib>

namespace vc::kubernetes {
namespace {

using nlohmann::json;
using sdk::OpResult;

// $1: working directory, $2: the number of stdin bytes (empty: none), then the command.
constexpr const char* kPrologue =
    "echo \"$$\" >&2; cd -- \"$1\" || exit 126; n=$2; shift 2; "
    "if [ -z \"$n\" ]; then exec \"$@\" </dev/null; fi; head -c \"$n\" | \"$@\"";
constexpr std::chrono::seconds kKillDeadline{15};
// A request without a timeout still ends: the longest a host ever asks for.
constexpr std::chrono::hours kNoTimeout{24};

json exec_result(std::int64_t exit_code, const char* outcome, std::int64_t duration_ms) {
  return json{{"exit_code", exit_code}, {"outcome", outcome}, {"duration_ms", duration_ms}};
}

// Ends the command's process group; logs nothing itself (the caller's result says enough).
void kill_process_group(ClusterCalls& calls, const std::string& pod, const std::string& pid) {
  if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) return;
  sdk::CancelScope own_scope;  // a cancelled op still kills what it started
  ExecCall kill;
  kill.pod = pod;
  kill.container = kComputerContainer;
  // dash's kill takes no "--": a negative PID names the process group.
  kill.argv = {"/bin/sh", "-c", "kill -KILL -\"$1\" 2>/dev/null; kill -KILL \"$1\" 2>/dev/null; true",
               "vc-kill", pid};
  kill.deadline = kKillDeadline;
  (void)calls.exec(kill, own_scope);
}

// Splits the prologue's first stderr line (the PID) from the command's own stderr.
class PidLine {
 public:
  // The command's part of `bytes` (empty while the PID line is still coming).
  std::string_view take(std::string_view bytes) {
    if (done_) return bytes;
    const auto newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      if (pid_.size() < 32) pid_.append(bytes);
      return {};
    }
    pid_.append(bytes.substr(0, newline));
    done_ = true;
    return bytes.substr(newline + 1);
  }
  const std::string& pid() const { return pid_; }

 private:
  std::string pid_;
  bool done_ = false;
};

}  // namespace

OpResult conclude_lost_command(ComputerFlows& flows, const std::string& computer_id,
                               const sdk::OpFailure& lost) {
  sdk::CancelScope look;
  auto pod = flows.running_pod(computer_id, look);
  if (!pod && pod.error().status != VC_E_UNAVAILABLE) {
    return OpResult::error(VC_E_COMPUTER_DIED, "The computer " + computer_id +
                                                   " stopped during the command: " +
                                                   pod.error().message);
  }
  return OpResult::failed(lost);
}

std::vector<std::string> api_exec_argv(const CommandScene& scene, const sdk::ExecRequest& request,
                                       std::size_t stdin_size) {
  std::vector<std::string> argv = {"/bin/sh", "-c", kPrologue, "vc-exec",
                                   request.working_directory.value_or(scene.workspace),
                                   stdin_size == 0 ? "" : std::to_string(stdin_size)};
  for (auto& word : request.resolved_argv(scene.default_shell)) argv.push_back(std::move(word));
  return argv;
}

OpResult run_command_by_api_exec(ClusterCalls& calls, ComputerFlows& flows,
                                 const CommandScene& scene, const sdk::ExecRequest& request,
                                 std::string_view stdin_bytes, const EmitOutput& emit,
                                 sdk::CancelScope& scope) {
  const auto started = std::chrono::steady_clock::now();
  const auto elapsed_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 started)
        .count();
  };
  PidLine pid_line;
  std::uint64_t output_bytes = 0;
  bool over_limit = false;
  bool listener_gone = false;

  ExecCall call;
  call.pod = scene.pod;
  call.container = kComputerContainer;
  call.argv = api_exec_argv(scene, request, stdin_bytes.size());
  call.stdin_bytes = std::string(stdin_bytes);
  call.deadline = request.timeout_ms > 0 ? std::chrono::milliseconds(request.timeout_ms)
                                         : std::chrono::duration_cast<std::chrono::milliseconds>(kNoTimeout);
  call.on_output = [&](bool is_stderr, std::string_view bytes) {
    if (is_stderr) bytes = pid_line.take(bytes);
    if (bytes.empty()) return true;
    if (request.output_limit > 0 && output_bytes + bytes.size() > request.output_limit) {
      bytes = bytes.substr(0, request.output_limit - output_bytes);
      over_limit = true;
    }
    output_bytes += bytes.size();
    if (!bytes.empty() && !emit(is_stderr ? VC_STREAM_STDERR : VC_STREAM_STDOUT, bytes)) {
      listener_gone = true;
    }
    return !over_limit && !listener_gone;
  };

  auto result = calls.exec(call, scope);
  if (!result) {
    if (result.error().kind == ApiErrorKind::cancelled) {
      kill_process_group(calls, scene.pod, pid_line.pid());
      return OpResult::cancelled();
    }
    // The stream broke: the computer's death, when it went away.
    return conclude_lost_command(flows, request.computer_id, failure_of(result.error()));
  }
  const ExecResult& ended = result.value();
  if (ended.deadline_passed || over_limit || listener_gone) {
    kill_process_group(calls, scene.pod, pid_line.pid());
    const char* outcome = ended.deadline_passed ? "timed_out" : "output_limit_exceeded";
    return OpResult::ok(exec_result(137, outcome, elapsed_ms()));
  }
  if (!ended.exit_code) {
    return OpResult::error(VC_E_FAILED, "The command in " + scene.pod +
                                            " ended without an exit status.");
  }
  return OpResult::ok(exec_result(*ended.exit_code, "exited", elapsed_ms()));
}

}  // namespace vc::kubernetes
