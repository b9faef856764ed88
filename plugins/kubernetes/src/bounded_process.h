// bounded_process.h — running a helper program (an exec credential plugin) so that it cannot
// hang or flood the server: argv without a shell, its own process group, stdin /dev/null,
// stdout and stderr captured up to a bound, and the whole group killed when the deadline
// passes or stdout outgrows its bound.
//
// Thread rule: run_bounded_process() blocks the calling thread until the program ends or is
// killed; any thread, several calls at once (the pipes are close-on-exec, so a program started
// by one call holds no other call's pipe). It never touches signal handlers or SIGCHLD: it
// waits for its own child by pid.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api_endpoint.h"

namespace vc::kubernetes {

struct BoundedProcessRequest {
  std::string program;                   // the file to run (see find_program)
  std::vector<std::string> arguments;    // argv[1…]; argv[0] is `program`
  std::vector<std::string> environment;  // the whole environment, "NAME=value" each
  std::chrono::milliseconds timeout{30'000};
  std::size_t max_stdout_bytes = 1024 * 1024;
  std::size_t max_stderr_bytes = 64 * 1024;
};

struct BoundedProcessResult {
  enum class Ending {
    kExited,          // exit_code is set
    kKilledBySignal,  // signal is set
    kTimedOut,        // the deadline passed; the group was killed
    kStdoutTooLarge,  // stdout passed its bound; the group was killed
  };
  Ending ending = Ending::kExited;
  int exit_code = 0;
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;  // at most max_stderr_bytes: its beginning
};

// Runs the program. The error (the program could not be started) is a clause to follow the
// program's name: "cannot be started: Permission denied".
ConfigExpected<BoundedProcessResult> run_bounded_process(const BoundedProcessRequest& request);

// Where `command` is run from, as a shell would find it: the command itself when it holds a
// '/', else the first executable regular file of that name in the folders of `search_path`
// (a PATH value). nullopt when there is none.
std::optional<std::string> find_program(const std::string& command, std::string_view search_path);

}  // namespace vc::kubernetes
