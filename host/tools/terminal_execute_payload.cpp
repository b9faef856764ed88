// terminal_execute_payload.cpp — success and error payloads of terminal_execute.
#include "tools/terminal_execute_payload.h"

#include "common/utf8_repair.h"

namespace vc::tools {
namespace {

constexpr int kTimeoutExitCode = 124;  // what coreutils' timeout(1) reports
constexpr int kOutputLimitExitCode = 1;

struct Streams {
  std::string stdout_text;
  std::string stderr_text;
  int exit_code = 0;
};

Streams reported_streams(const computers::ExecResult& result,
                         const computers::ExecRequest& request) {
  switch (result.outcome) {
    case computers::ExecOutcome::timed_out:
      return {"", timeout_marker(request.timeout_s), kTimeoutExitCode};
    case computers::ExecOutcome::output_limit_exceeded:
      return {"", output_limit_marker(request.output_limit), kOutputLimitExitCode};
    case computers::ExecOutcome::exited:
      break;
  }
  return {repair_utf8(result.stdout_bytes), repair_utf8(result.stderr_bytes), result.exit_code};
}

}  // namespace

Json terminal_error_payload(const std::string& computer_id, bool desktop_environment,
                            const std::string& message) {
  Json payload = Json::object();
  payload["operation"] = "terminal_execute";
  payload["computer_id"] = computer_id;
  payload["desktop_environment"] = desktop_environment;
  payload["error"] = message;
  return payload;
}

Json terminal_success_payload(const computers::ExecResult& result,
                              const computers::ExecRequest& request) {
  const computers::ComputerInfo& computer = result.computer;
  Streams streams = reported_streams(result, request);
  Json payload = Json::object();
  payload["computer_id"] = computer.computer_id;
  payload["operation"] = "terminal_execute";
  payload["desktop_environment"] = computer.desktop_environment;
  payload["network_access"] = computer.network_access;
  payload["desktop_url"] = computer.desktop_url ? Json(*computer.desktop_url) : Json(nullptr);
  payload["stdout"] = std::move(streams.stdout_text);
  payload["stderr"] = std::move(streams.stderr_text);
  payload["exit_code"] = streams.exit_code;
  payload["exec_duration_ms"] = result.duration_ms;
  return payload;
}

std::string timeout_marker(int64_t timeout_s) {
  return "[kilntainers: command timed out after " + std::to_string(timeout_s) + "s]";
}

std::string output_limit_marker(uint64_t output_limit) {
  return "[kilntainers: output limit exceeded (" + std::to_string(output_limit) +
         " bytes). Command terminated. No output returned. Re-run with head, tail, or grep to "
         "manage output size.]";
}

}  // namespace vc::tools
