// messages.h — the JSON payloads the agent sends (docs/exec-agent.md, "Agent to plugin").
//
// Kept apart so that the JSON library is compiled into two translation units only (this one and
// start_request.cpp), and so that the field names live in one place.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>

#include "vc_agent_common/clock.h"

namespace vc::exec_agent {

using agent_common::Millis;

enum class Outcome { kExited, kTimedOut, kOutputLimitExceeded, kCancelled, kStartFailed };

// The `exit` frame: the last frame of a command.
struct ExitReport {
  Outcome outcome = Outcome::kExited;
  int exit_code = 0;          // the exit status, or 128 + the signal that ended the process
  std::optional<int> signal;  // when a signal ended it
  Millis duration_ms = 0;     // from fork to the command's process being reaped
  std::string error_code;     // with kStartFailed: cwd_missing, cwd_unusable, fork_failed
  std::string error;          // with kStartFailed: what went wrong, for people
};

std::string hello_payload();
std::string started_payload(pid_t pid);
std::string exit_payload(const ExitReport& report);
std::string error_payload(const std::string& message);

// The report of a command whose process ended with `wait_status` (from waitpid).
ExitReport exit_report_from_wait_status(int wait_status);

}  // namespace vc::exec_agent
