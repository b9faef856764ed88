#include "messages.h"

#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "vc_exec_agent/frames.h"

#ifndef VC_EXEC_AGENT_VERSION
#define VC_EXEC_AGENT_VERSION "dev"
#endif

namespace vc::exec_agent {
namespace {

using nlohmann::json;

// Error texts can quote what the plugin sent (a cwd, a parser's view of bad bytes): replace
// invalid UTF-8 rather than throw, so a report can always be sent.
std::string serialise(const json& body) {
  return body.dump(-1, ' ', false, json::error_handler_t::replace);
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kExited: return "exited";
    case Outcome::kTimedOut: return "timed_out";
    case Outcome::kOutputLimitExceeded: return "output_limit_exceeded";
    case Outcome::kCancelled: return "cancelled";
    case Outcome::kStartFailed: return "start_failed";
  }
  return "exited";
}

}  // namespace

std::string hello_payload() {
  return serialise({{"agent", "vc-exec-agent"},
                    {"version", VC_EXEC_AGENT_VERSION},
                    {"protocol", kProtocolVersion},
                    {"pid", getpid()},
                    {"uid", getuid()}});
}

std::string started_payload(pid_t pid) { return serialise({{"pid", pid}}); }

std::string exit_payload(const ExitReport& report) {
  json body = {{"outcome", outcome_name(report.outcome)},
               {"exit_code", report.exit_code},
               {"duration_ms", report.duration_ms}};
  if (report.signal) body["signal"] = *report.signal;
  if (!report.error_code.empty()) body["error_code"] = report.error_code;
  if (!report.error.empty()) body["error"] = report.error;
  return serialise(body);
}

std::string error_payload(const std::string& message) { return serialise({{"message", message}}); }

ExitReport exit_report_from_wait_status(int wait_status) {
  ExitReport report;
  if (WIFSIGNALED(wait_status)) {
    report.signal = WTERMSIG(wait_status);
    report.exit_code = 128 + *report.signal;
  } else {
    report.exit_code = WEXITSTATUS(wait_status);
  }
  return report;
}

}  // namespace vc::exec_agent
