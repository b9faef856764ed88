// terminal_execute_arguments.cpp — reading, sanitising and validating terminal_execute's input.
#include "tools/terminal_execute_arguments.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <vc-backend-1/vc_status.h>

namespace vc::tools {
namespace {

// The arguments as the client sent them, before sanitising.
struct RawArguments {
  std::optional<std::string> command;
  std::optional<std::vector<std::string>> args;
  std::optional<std::string> stdin_data;
  std::optional<std::string> working_directory;
  std::optional<int64_t> timeout_s;
};

Failure invalid(std::string message) { return Failure{VC_E_INVALID_ARGUMENT, std::move(message)}; }

// The session validates arguments against the input schema first, so the type checks below
// are a second line of defence, not the user-facing validation.
const Json* argument(const Json& arguments, const char* name) {
  if (!arguments.is_object()) return nullptr;
  auto it = arguments.find(name);
  if (it == arguments.end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<Failure> read_string(const Json& arguments, const char* name,
                                   std::optional<std::string>& out) {
  const Json* value = argument(arguments, name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) return invalid(std::string(name) + " must be a string.");
  out = value->get<std::string>();
  return std::nullopt;
}

std::optional<Failure> read_string_list(const Json& arguments, const char* name,
                                        std::optional<std::vector<std::string>>& out) {
  const Json* value = argument(arguments, name);
  if (value == nullptr) return std::nullopt;
  Failure wrong_type = invalid(std::string(name) + " must be an array of strings.");
  if (!value->is_array()) return wrong_type;
  std::vector<std::string> items;
  for (const auto& item : *value) {
    if (!item.is_string()) return wrong_type;
    items.push_back(item.get<std::string>());
  }
  out = std::move(items);
  return std::nullopt;
}

// 2^63 is exactly representable as a double; every double below it converts without overflow.
int64_t saturate_to_int64(double whole_number) {
  constexpr double kTwoToThe63 = 9223372036854775808.0;
  if (whole_number >= kTwoToThe63) return std::numeric_limits<int64_t>::max();
  if (whole_number < -kTwoToThe63) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(whole_number);
}

bool is_whole_number(const Json& value) {
  if (!value.is_number_float()) return false;
  double number = value.get<double>();
  return std::isfinite(number) && std::floor(number) == number;
}

// Whole numbers only, as JSON Schema's "integer" (which admits 5.0). There is no maximum, so
// values beyond int64 saturate instead of wrapping.
std::optional<Failure> read_integer(const Json& arguments, const char* name,
                                    std::optional<int64_t>& out) {
  const Json* value = argument(arguments, name);
  if (value == nullptr) return std::nullopt;
  if (value->is_number_unsigned()) {
    constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    out = static_cast<int64_t>(std::min(value->get<uint64_t>(), kMax));
  } else if (value->is_number_integer()) {
    out = value->get<int64_t>();
  } else if (is_whole_number(*value)) {
    out = saturate_to_int64(value->get<double>());
  } else {
    return invalid(std::string(name) + " must be an integer.");
  }
  return std::nullopt;
}

Expected<RawArguments> read_raw(const Json& arguments) {
  RawArguments raw;
  if (auto failure = read_string(arguments, "command", raw.command)) return *failure;
  if (auto failure = read_string_list(arguments, "args", raw.args)) return *failure;
  if (auto failure = read_string(arguments, "stdin", raw.stdin_data)) return *failure;
  if (auto failure = read_string(arguments, "working_directory", raw.working_directory)) {
    return *failure;
  }
  if (auto failure = read_integer(arguments, "timeout", raw.timeout_s)) return *failure;
  return raw;
}

// Step 1: the original treats empty values as not given.
void drop_empty_values(RawArguments& raw) {
  if (raw.args && raw.args->empty()) raw.args.reset();
  if (raw.command && raw.command->empty()) raw.command.reset();
  if (raw.working_directory && raw.working_directory->empty()) raw.working_directory.reset();
  if (raw.stdin_data && raw.stdin_data->empty()) raw.stdin_data.reset();
}

// Steps 2-6, in the original's order; the first problem wins.
std::optional<Failure> first_problem(const RawArguments& raw) {
  if (raw.command && raw.args) {
    return invalid(
        "Cannot provide both 'command' and 'args'. Use 'command' for shell commands or 'args' "
        "for direct execution.");
  }
  if (!raw.command && !raw.args) return invalid("Must provide either 'command' or 'args'.");
  if (raw.working_directory && raw.working_directory->front() != '/') {
    return invalid("working_directory must be an absolute path, got: " + *raw.working_directory);
  }
  if (raw.timeout_s && *raw.timeout_s < 1) return invalid("timeout must be at least 1 second.");
  // JSON strings arrive as UTF-8, so the byte size is the UTF-8 length the limit is about.
  if (raw.stdin_data && raw.stdin_data->size() > kStdinLimitBytes) {
    return invalid("stdin content exceeds the 2 MiB limit (" +
                   std::to_string(raw.stdin_data->size()) +
                   " bytes). Split into smaller chunks or use a different approach.");
  }
  return std::nullopt;
}

}  // namespace

Expected<computers::ExecRequest> read_terminal_execute_arguments(const Json& arguments,
                                                                 int64_t default_timeout_s,
                                                                 uint64_t output_limit) {
  auto raw = read_raw(arguments);
  if (!raw.ok()) return raw.error();
  drop_empty_values(raw.value());
  if (auto problem = first_problem(raw.value())) return *problem;

  RawArguments& valid = raw.value();
  computers::ExecRequest request;
  request.command = std::move(valid.command);
  if (valid.args) request.args = std::move(*valid.args);
  request.stdin_data = valid.stdin_data.value_or("");
  request.working_directory = std::move(valid.working_directory);
  request.timeout_s = valid.timeout_s.value_or(default_timeout_s);
  request.output_limit = output_limit;
  return request;
}

}  // namespace vc::tools
