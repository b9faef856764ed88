// command_runner.h — runs a helper program (the engine's CLI, curl) from a test and captures its
// output. For checks made from the outside (is a process left in the container, does the
// container exist); the product itself never runs these programs.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "child_process.h"

namespace vc::test {

struct CommandResult {
  bool timed_out = false;  // killed after the timeout; the fields below are what was captured
  ExitStatus status;
  std::string out;
  std::string err;

  bool ok() const { return !timed_out && status.exited && status.code == 0; }
  // "`docker ps` → exit code 1; stderr: ..." for assertion messages.
  std::string describe(const std::vector<std::string>& argv) const;
};

using Environment = std::map<std::string, std::optional<std::string>>;

// Runs argv (argv[0] looked up on PATH) with `stdin_data` on its stdin and `environment`
// applied to the test's own, waits at most `timeout`, SIGKILLs it after that. Throws
// std::runtime_error only when it cannot be started.
CommandResult run_command(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::seconds(60),
                          std::string_view stdin_data = {}, const Environment& environment = {});

// The command as one shell-like line, for messages.
std::string command_text(const std::vector<std::string>& argv);

// `text` without trailing whitespace (CLI output usually ends in a newline).
std::string trim_trailing(std::string text);

}  // namespace vc::test
