// exec_request.h — the exec request document (schemas/exec.request.json), parsed and checked.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace vc_template {

struct ExecRequest {
  std::string computer_id;
  std::vector<std::string> argv;  // the shell form is already expanded: {shell, "-c", command}
  std::optional<std::string> working_directory;
  int64_t timeout_ms = 0;
  uint64_t output_limit = 0;  // combined stdout+stderr bytes; 0 = no limit
};

// [loop-thread] Parses and validates without touching the file system. On failure returns
// nullopt and sets `error` to a sentence saying what is wrong.
std::optional<ExecRequest> parse_exec_request(const nlohmann::json& request, std::string& error);

}  // namespace vc_template
