// exec_request.h — checking an exec request document (schemas/exec.request.json).
// Pure; any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vc::container {

struct ExecRequest {
  std::string computer_id;
  std::optional<std::string> command;  // run as <shell> -c <command>
  std::optional<std::string> shell;    // absent: the computer's shell
  std::vector<std::string> argv;       // run directly (when no command)
  std::optional<std::string> working_directory;
  std::int64_t timeout_ms = 0;
  std::uint64_t output_limit = 0;  // 0 = none

  // The argv to execute, given the shell to use when the request names none.
  std::vector<std::string> resolved_argv(const std::string& default_shell) const;
};

// nullopt with `error` set when the document breaks the schema.
std::optional<ExecRequest> parse_exec_request(const nlohmann::json& request, std::string& error);

}  // namespace vc::container
