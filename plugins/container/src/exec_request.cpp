// exec_request.cpp — exec request validation.
#include "exec_request.h"

#include "computer_naming.h"

namespace vc::container {
namespace {

bool present(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && !it->is_null();
}

bool non_empty_string(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string() && !it->get_ref<const std::string&>().empty();
}

}  // namespace

std::vector<std::string> ExecRequest::resolved_argv(const std::string& default_shell) const {
  if (command) return {shell.value_or(default_shell), "-c", *command};
  return argv;
}

std::optional<ExecRequest> parse_exec_request(const nlohmann::json& request, std::string& error) {
  ExecRequest parsed;
  if (!non_empty_string(request, "computer_id") ||
      !is_valid_computer_id(request["computer_id"].get_ref<const std::string&>())) {
    error = std::string("exec: ") + kComputerIdRule;
    return std::nullopt;
  }
  parsed.computer_id = request["computer_id"].get<std::string>();

  const bool has_command = present(request, "command");
  const bool has_argv = present(request, "argv");
  if (has_command == has_argv) {
    error = "exec: exactly one of command and argv is required";
    return std::nullopt;
  }
  if (has_command) {
    if (!non_empty_string(request, "command")) {
      error = "exec: command must be a non-empty string";
      return std::nullopt;
    }
    parsed.command = request["command"].get<std::string>();
    if (present(request, "shell")) {
      if (!non_empty_string(request, "shell")) {
        error = "exec: shell must be a non-empty string";
        return std::nullopt;
      }
      parsed.shell = request["shell"].get<std::string>();
    }
  } else {
    const auto& argv = request["argv"];
    if (!argv.is_array() || argv.empty()) {
      error = "exec: argv must be a non-empty array of strings";
      return std::nullopt;
    }
    for (const auto& arg : argv) {
      if (!arg.is_string()) {
        error = "exec: argv must be a non-empty array of strings";
        return std::nullopt;
      }
      parsed.argv.push_back(arg.get<std::string>());
    }
  }
  if (present(request, "working_directory")) {
    if (!non_empty_string(request, "working_directory")) {
      error = "exec: working_directory must be a non-empty string";
      return std::nullopt;
    }
    parsed.working_directory = request["working_directory"].get<std::string>();
  }
  auto timeout = request.find("timeout_ms");
  if (timeout == request.end() || !timeout->is_number_integer() || timeout->get<std::int64_t>() < 1) {
    error = "exec: timeout_ms must be an integer >= 1";
    return std::nullopt;
  }
  parsed.timeout_ms = timeout->get<std::int64_t>();
  auto limit = request.find("output_limit");
  if (limit == request.end() || !limit->is_number_integer() || limit->get<std::int64_t>() < 0) {
    error = "exec: output_limit must be an integer >= 0";
    return std::nullopt;
  }
  parsed.output_limit = limit->get<std::uint64_t>();
  return parsed;
}

}  // namespace vc::container
