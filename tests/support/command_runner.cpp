// command_runner.cpp — see command_runner.h.
#include "command_runner.h"

namespace vc::test {

std::string command_text(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& arg : argv) {
    if (!text.empty()) text.push_back(' ');
    const bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`") == std::string::npos;
    text += plain ? arg : "'" + arg + "'";
  }
  return text;
}

std::string trim_trailing(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r' ||
                           text.back() == '\t')) {
    text.pop_back();
  }
  return text;
}

std::string CommandResult::describe(const std::vector<std::string>& argv) const {
  // Appended piecewise: `"..." + std::string&&` trips GCC 12's -Wrestrict false positive at -O2.
  std::string text = "`";
  text += command_text(argv);
  text += "` -> ";
  text += timed_out ? "timed out" : status.describe();
  if (!out.empty()) text += "\nstdout: " + out.substr(0, 4000);
  if (!err.empty()) text += "\nstderr: " + err.substr(0, 4000);
  return text;
}

CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          std::string_view stdin_data, const Environment& environment) {
  SpawnOptions options;
  options.argv = argv;
  options.environment = environment;
  options.search_path = true;
  ChildProcess child(options);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
  };

  CommandResult result;
  if (!stdin_data.empty()) child.write_stdin(stdin_data, timeout);
  child.close_stdin();
  if (auto out = child.read_to_eof(std::max(left(), std::chrono::milliseconds(0)))) {
    result.out = std::move(*out);
  } else {
    result.timed_out = true;
  }
  if (auto status = child.wait(std::max(left(), std::chrono::milliseconds(0)))) {
    result.status = *status;
  } else {
    result.timed_out = true;
    result.status = child.stop(std::chrono::milliseconds(0));
  }
  if (result.timed_out && child.running()) result.status = child.stop(std::chrono::milliseconds(0));
  result.err = child.stderr_text();
  return result;
}

}  // namespace vc::test
