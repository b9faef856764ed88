// exec_request.cpp — validation of exec requests.
#include "exec_request.h"

#include "computer_id.h"

namespace vc_template {
namespace {

constexpr const char* kDefaultShell = "/bin/sh";

bool is_string(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && it->is_string();
}

bool has(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && !it->is_null();
}

}  // namespace

std::optional<ExecRequest> parse_exec_request(const nlohmann::json& request, std::string& error) {
  ExecRequest parsed;
  if (!is_string(request, "computer_id") ||
      !is_valid_computer_id(request["computer_id"].get_ref<const std::string&>())) {
    error = "exec: computer_id must be a valid computer id";
    return std::nullopt;
  }
  parsed.computer_id = request["computer_id"].get<std::string>();

  bool has_command = has(request, "command");
  bool has_argv = has(request, "argv");
  if (has_command == has_argv) {
    error = "exec: exactly one of command and argv is required";
    return std::nullopt;
  }
  if (has_command) {
    if (!is_string(request, "command") || request["command"].get_ref<const std::string&>().empty()) {
      error = "exec: command must be a non-empty string";
      return std::nullopt;
    }
    std::string shell = kDefaultShell;
    if (has(request, "shell")) {
      if (!is_string(request, "shell") || request["shell"].get_ref<const std::string&>().empty()) {
        error = "exec: shell must be a non-empty string";
        return std::nullopt;
      }
      shell = request["shell"].get<std::string>();
    }
    parsed.argv = {shell, "-c", request["command"].get<std::string>()};
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

  if (has(request, "working_directory")) {
    if (!is_string(request, "working_directory") ||
        request["working_directory"].get_ref<const std::string&>().empty()) {
      error = "exec: working_directory must be a non-empty string";
      return std::nullopt;
    }
    parsed.working_directory = request["working_directory"].get<std::string>();
  }

  auto timeout = request.find("timeout_ms");
  if (timeout == request.end() || !timeout->is_number_integer() || timeout->get<int64_t>() < 1) {
    error = "exec: timeout_ms must be an integer >= 1";
    return std::nullopt;
  }
  parsed.timeout_ms = timeout->get<int64_t>();

  auto limit = request.find("output_limit");
  if (limit == request.end() || !limit->is_number_unsigned()) {
    error = "exec: output_limit must be an integer >= 0";
    return std::nullopt;
  }
  parsed.output_limit = limit->get<uint64_t>();
  return parsed;
}

}  // namespace vc_template
