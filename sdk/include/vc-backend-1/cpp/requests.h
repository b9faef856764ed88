// requests.h — the request documents of every operation, parsed and checked into typed structs.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). Each struct
// mirrors one schema in share/vc-backend-1/schemas/<op>.request.json; parse() checks what the
// schema requires and throws InvalidRequest with a sentence naming the field. The op table of
// backend_ops.h parses every request before calling the backend, and turns InvalidRequest into
// an op completed at once with VC_E_INVALID_ARGUMENT and "Invalid <op> request: <why>".
// Unknown fields are ignored, as the ABI requires. Pure functions: any thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint_name.h"
#include "computer_id.h"
#include "process_limits.h"

namespace vc::sdk {

// A request that breaks its schema. what() is the reason, phrased for the user.
class InvalidRequest : public std::runtime_error {
 public:
  explicit InvalidRequest(const std::string& why) : std::runtime_error(why) {}
};

// "2g", "512m", "100" (bytes), "4kb": a whole number with an optional b, k, m or g suffix (any
// case, optionally followed by b), as resources.memory of schemas/create.request.json. nullopt
// when malformed or beyond int64.
inline std::optional<std::int64_t> parse_memory_size(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 18) return std::nullopt;  // 19 digits could overflow int64
  std::int64_t value = 0;
  for (std::size_t i = 0; i < digits; ++i) value = value * 10 + (text[i] - '0');

  std::string unit;
  for (char c : text.substr(digits)) {
    unit.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  std::int64_t multiplier = 1;
  if (unit.empty() || unit == "b") {
    multiplier = 1;
  } else if (unit == "k" || unit == "kb") {
    multiplier = std::int64_t{1} << 10;
  } else if (unit == "m" || unit == "mb") {
    multiplier = std::int64_t{1} << 20;
  } else if (unit == "g" || unit == "gb") {
    multiplier = std::int64_t{1} << 30;
  } else {
    return std::nullopt;
  }
  if (value > std::numeric_limits<std::int64_t>::max() / multiplier) return std::nullopt;
  return value * multiplier;
}

namespace request_fields {

// Present and not null: what "given" means for an optional field.
inline bool present(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  return it != doc.end() && !it->is_null();
}

inline std::optional<std::string> non_empty_string(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

inline std::optional<bool> boolean(const nlohmann::json& doc, const char* key) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

// The required booleans `keys` name, in order. Throws "<a>, <b> and <c> must be booleans" when
// any is missing or of another type.
template <std::size_t N>
std::array<bool, N> required_booleans(const nlohmann::json& doc, const char* const (&keys)[N]) {
  std::array<bool, N> values{};
  std::string names;
  bool all_present = true;
  for (std::size_t i = 0; i < N; ++i) {
    auto value = boolean(doc, keys[i]);
    all_present = all_present && value.has_value();
    values[i] = value.value_or(false);
    names += (i == 0 ? "" : i + 1 == N ? " and " : ", ") + std::string(keys[i]);
  }
  if (!all_present) {
    throw InvalidRequest(names + (N == 1 ? " must be a boolean" : " must be booleans"));
  }
  return values;
}

// A required non-empty string; throws "<key> must be a non-empty string" otherwise.
inline std::string required_string(const nlohmann::json& doc, const char* key) {
  auto value = non_empty_string(doc, key);
  if (!value) throw InvalidRequest(std::string(key) + " must be a non-empty string");
  return std::move(*value);
}

inline std::string valid_checkpoint_name(const nlohmann::json& doc, const char* key) {
  auto name = doc.find(key);
  if (name == doc.end() || !name->is_string() ||
      !is_valid_checkpoint_name(name->get_ref<const std::string&>())) {
    throw InvalidRequest(std::string(key) + ": " + kCheckpointNameRule);
  }
  return name->get<std::string>();
}

inline std::string valid_computer_id(const nlohmann::json& doc) {
  auto id = doc.find("computer_id");
  if (id == doc.end() || !id->is_string() || !is_valid_computer_id(id->get_ref<const std::string&>())) {
    throw InvalidRequest(kComputerIdRule);
  }
  return id->get<std::string>();
}

// An optional non-empty string field: nullopt when absent or null.
inline std::optional<std::string> optional_string(const nlohmann::json& doc, const char* key,
                                                  const char* why) {
  if (!present(doc, key)) return std::nullopt;
  auto value = non_empty_string(doc, key);
  if (!value) throw InvalidRequest(why);
  return value;
}

}  // namespace request_fields

// validate: {}
struct ValidateRequest {
  static ValidateRequest parse(const nlohmann::json&) { return {}; }
};

// list: {}
struct ListRequest {
  static ListRequest parse(const nlohmann::json&) { return {}; }
};

// ensure_image: {"image"?}
struct EnsureImageRequest {
  std::optional<std::string> image;  // absent: the backend's default

  static EnsureImageRequest parse(const nlohmann::json& doc) {
    return {request_fields::optional_string(doc, "image", "image must be a non-empty string")};
  }
};

// restart, remove, factory_reset, get_desktop_environment, wait_for_death: {"computer_id"}
struct ComputerRequest {
  std::string computer_id;

  static ComputerRequest parse(const nlohmann::json& doc) {
    return {request_fields::valid_computer_id(doc)};
  }
};

// set_network_access, set_desktop_environment: {"computer_id","enabled"}
struct ToggleRequest {
  std::string computer_id;
  bool enabled = false;

  static ToggleRequest parse(const nlohmann::json& doc) {
    ToggleRequest parsed;
    parsed.computer_id = request_fields::valid_computer_id(doc);
    parsed.enabled = request_fields::required_booleans(doc, {"enabled"})[0];
    return parsed;
  }
};

// create: {"computer_id","temporary","network_access","desktop_environment",
//          "workspace_directory","shell","image"?,"resources"?:{"cpus"?,"memory"?,"pids_limit"?},
//          "adopt_existing"?}
struct CreateRequest {
  std::string computer_id;
  bool temporary = false;
  bool network_access = true;
  bool desktop_environment = false;
  std::string workspace_directory;  // absolute
  std::string shell;
  std::optional<std::string> image;  // absent: the backend's default
  // Limits the request sets; absent: the backend's defaults.
  std::optional<double> cpus;
  std::optional<std::int64_t> memory_bytes;
  std::optional<std::int64_t> pids_limit;
  // ABI 1.1: an existing computer of this backend with that id is adopted as attach would,
  // instead of answering VC_E_ALREADY_EXISTS. Absent means false.
  bool adopt_existing = false;
  // ABI 1.3: host folders to mount into the computer, as the request gave them (an array of
  // {"host_path","computer_path","read_only"?}); the backend checks the entries. Absent: none
  // beyond the backend's own.
  std::optional<nlohmann::json> mounts;

  static CreateRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    CreateRequest parsed;
    parsed.computer_id = valid_computer_id(doc);
    auto [temporary, network, desktop] =
        required_booleans(doc, {"temporary", "network_access", "desktop_environment"});
    parsed.temporary = temporary;
    parsed.network_access = network;
    parsed.desktop_environment = desktop;
    auto workspace = non_empty_string(doc, "workspace_directory");
    if (!workspace || workspace->front() != '/') {
      throw InvalidRequest("workspace_directory must be an absolute path");
    }
    parsed.workspace_directory = std::move(*workspace);
    parsed.shell = required_string(doc, "shell");
    parsed.image = optional_string(doc, "image", "image must be a non-empty string");
    if (present(doc, "adopt_existing")) {
      auto adopt = boolean(doc, "adopt_existing");
      if (!adopt) throw InvalidRequest("adopt_existing must be a boolean");
      parsed.adopt_existing = *adopt;
    }
    if (present(doc, "mounts")) {
      if (!doc["mounts"].is_array()) throw InvalidRequest("mounts must be an array");
      parsed.mounts = doc["mounts"];
    }

    auto resources = doc.find("resources");
    if (resources == doc.end() || resources->is_null()) return parsed;
    if (!resources->is_object()) throw InvalidRequest("resources must be an object");
    if (present(*resources, "cpus")) {
      const auto& cpus = (*resources)["cpus"];
      if (!cpus.is_number() || cpus.get<double>() <= 0) {
        throw InvalidRequest("resources.cpus must be a positive number");
      }
      parsed.cpus = cpus.get<double>();
    }
    if (present(*resources, "memory")) {
      const auto& memory = (*resources)["memory"];
      std::optional<std::int64_t> bytes;
      if (memory.is_number_unsigned()) bytes = memory.get<std::int64_t>();
      if (memory.is_string()) bytes = parse_memory_size(memory.get<std::string>());
      if (!bytes || *bytes < 1) throw InvalidRequest("resources.memory must be a size such as 2g");
      parsed.memory_bytes = bytes;
    }
    if (present(*resources, "pids_limit")) {
      const auto& pids = (*resources)["pids_limit"];
      if (!pids.is_number_integer() || pids.get<std::int64_t>() < 1) {
        throw InvalidRequest("resources.pids_limit must be an integer >= 1");
      }
      parsed.pids_limit = pids.get<std::int64_t>();
    }
    return parsed;
  }
};

// attach: {"computer_id","network_access","desktop_environment","shell"}
struct AttachRequest {
  std::string computer_id;
  bool network_access = true;
  bool desktop_environment = false;
  std::string shell;

  static AttachRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    AttachRequest parsed;
    parsed.computer_id = valid_computer_id(doc);
    auto [network, desktop] = required_booleans(doc, {"network_access", "desktop_environment"});
    parsed.network_access = network;
    parsed.desktop_environment = desktop;
    parsed.shell = required_string(doc, "shell");
    return parsed;
  }
};

// exec: {"computer_id","command"|"argv","shell"?,"working_directory"?,"timeout_ms","output_limit"}
struct ExecRequest {
  std::string computer_id;
  std::optional<std::string> command;  // run as <shell> -c <command>
  std::optional<std::string> shell;    // absent: the computer's shell
  std::vector<std::string> argv;       // run directly (when no command)
  std::optional<std::string> working_directory;  // absent: the computer's workspace
  std::int64_t timeout_ms = 0;
  std::uint64_t output_limit = 0;  // combined stdout+stderr bytes; 0 = none

  // The argv to execute, given the shell to use when the request names none.
  std::vector<std::string> resolved_argv(const std::string& default_shell) const {
    if (command) return {shell.value_or(default_shell), "-c", *command};
    return argv;
  }

  static ExecRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    ExecRequest parsed;
    auto id = non_empty_string(doc, "computer_id");
    if (!id || !is_valid_computer_id(*id)) throw InvalidRequest(std::string("exec: ") + kComputerIdRule);
    parsed.computer_id = std::move(*id);

    const bool has_command = present(doc, "command");
    if (has_command == present(doc, "argv")) {
      throw InvalidRequest("exec: exactly one of command and argv is required");
    }
    if (has_command) {
      parsed.command = non_empty_string(doc, "command");
      if (!parsed.command) throw InvalidRequest("exec: command must be a non-empty string");
      parsed.shell = optional_string(doc, "shell", "exec: shell must be a non-empty string");
    } else {
      const auto& argv = doc["argv"];
      if (!argv.is_array() || argv.empty()) {
        throw InvalidRequest("exec: argv must be a non-empty array of strings");
      }
      for (const auto& arg : argv) {
        if (!arg.is_string()) throw InvalidRequest("exec: argv must be a non-empty array of strings");
        parsed.argv.push_back(arg.get<std::string>());
      }
    }
    parsed.working_directory = optional_string(
        doc, "working_directory", "exec: working_directory must be a non-empty string");
    auto timeout = doc.find("timeout_ms");
    if (timeout == doc.end() || !timeout->is_number_integer() || timeout->get<std::int64_t>() < 1) {
      throw InvalidRequest("exec: timeout_ms must be an integer >= 1");
    }
    parsed.timeout_ms = timeout->get<std::int64_t>();
    auto limit = doc.find("output_limit");
    if (limit == doc.end() || !limit->is_number_integer() || limit->get<std::int64_t>() < 0) {
      throw InvalidRequest("exec: output_limit must be an integer >= 0");
    }
    parsed.output_limit = limit->get<std::uint64_t>();
    return parsed;
  }
};

// tool_instructions: {"shell","default_timeout_s"}
struct ToolInstructionsRequest {
  std::string shell;
  std::int64_t default_timeout_s = 0;

  static ToolInstructionsRequest parse(const nlohmann::json& doc) {
    auto shell = request_fields::non_empty_string(doc, "shell");
    auto timeout = doc.find("default_timeout_s");
    if (!shell || timeout == doc.end() || !timeout->is_number_integer() ||
        timeout->get<std::int64_t>() < 1) {
      throw InvalidRequest(
          "shell (a non-empty string) and default_timeout_s (an integer >= 1) are required");
    }
    return {std::move(*shell), timeout->get<std::int64_t>()};
  }
};

// desktop_action (ext/vc_backend_desktop_control.h): {"computer_id","action",...the action's fields}
struct DesktopActionRequest {
  std::string computer_id;
  std::string action;
  nlohmann::json action_document;  // the whole request without computer_id

  static DesktopActionRequest parse(const nlohmann::json& doc) {
    DesktopActionRequest parsed{request_fields::valid_computer_id(doc), {}, doc};
    parsed.action = request_fields::required_string(doc, "action");
    parsed.action_document.erase("computer_id");
    return parsed;
  }
};

// create_checkpoint, restore_checkpoint, delete_checkpoint (ext/vc_backend_checkpoints.h):
// {"computer_id","name"}
struct CheckpointRequest {
  std::string computer_id;
  std::string name;

  static CheckpointRequest parse(const nlohmann::json& doc) {
    CheckpointRequest parsed{request_fields::valid_computer_id(doc), {}};
    parsed.name = request_fields::valid_checkpoint_name(doc, "name");
    return parsed;
  }
};

// fork_checkpoint (ext/vc_backend_checkpoints.h): {"computer_id","new_computer_id","name"?}
struct ForkRequest {
  std::string computer_id;
  std::string new_computer_id;
  std::optional<std::string> name;  // nullopt: fork the computer's current files

  static ForkRequest parse(const nlohmann::json& doc) {
    ForkRequest parsed{request_fields::valid_computer_id(doc), {}, std::nullopt};
    auto target = doc.find("new_computer_id");
    if (target == doc.end() || !target->is_string() ||
        !is_valid_computer_id(target->get_ref<const std::string&>())) {
      throw InvalidRequest(std::string("new_computer_id: ") + kComputerIdRule);
    }
    parsed.new_computer_id = target->get<std::string>();
    if (parsed.new_computer_id == parsed.computer_id) {
      throw InvalidRequest("new_computer_id must differ from computer_id");
    }
    if (request_fields::present(doc, "name")) {
      parsed.name = request_fields::valid_checkpoint_name(doc, "name");
    }
    return parsed;
  }
};

namespace request_fields {

// An optional integer in [low, high]; `fallback` when absent. Throws "<key> must be an integer
// from <low> to <high>" otherwise.
inline std::int64_t integer_in(const nlohmann::json& doc, const char* key, std::int64_t low,
                               std::int64_t high, std::int64_t fallback) {
  if (!present(doc, key)) return fallback;
  const auto& value = doc[key];
  if (!value.is_number_integer() || value.get<std::int64_t>() < low ||
      value.get<std::int64_t>() > high) {
    throw InvalidRequest(std::string(key) + " must be an integer from " + std::to_string(low) +
                         " to " + std::to_string(high));
  }
  return value.get<std::int64_t>();
}

inline std::string valid_process_id(const nlohmann::json& doc) {
  auto id = doc.find("process_id");
  if (id == doc.end() || !id->is_string() ||
      !is_valid_process_id(id->get_ref<const std::string&>())) {
    throw InvalidRequest(std::string("process_id: ") + kProcessIdRule);
  }
  return id->get<std::string>();
}

// "from": {"stdout": N, "stderr": N} (read, write and kill): offsets to take output from
// without moving the read position; nullopt when absent.
inline std::optional<std::pair<std::int64_t, std::int64_t>> output_from(const nlohmann::json& doc) {
  if (!present(doc, "from")) return std::nullopt;
  const auto& from = doc["from"];
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (!from.is_object()) throw InvalidRequest("from must be an object");
  return std::make_pair(integer_in(from, "stdout", 0, kMax, 0), integer_in(from, "stderr", 0, kMax, 0));
}

// wait_ms and max_bytes, shared by start, read and write.
inline std::pair<std::int64_t, std::int64_t> process_wait(const nlohmann::json& doc) {
  return {integer_in(doc, "wait_ms", 0, kProcessMaxWaitMs, 1000),
          integer_in(doc, "max_bytes", 1, kProcessMaxMaxBytes, kProcessDefaultMaxBytes)};
}

}  // namespace request_fields

// start_process (ext/vc_backend_processes.h): {"computer_id", "command" | "argv",
// "working_directory"?, "env"?, "pty"?, "rows"?, "cols"?, "wait_ms"?, "max_bytes"?}
struct ProcessStartRequest {
  std::string computer_id;
  std::optional<std::string> command;  // run as <the computer's shell> -c <command>
  std::vector<std::string> argv;       // run directly (when no command)
  std::optional<std::string> working_directory;  // absent: the computer's workspace
  std::vector<std::pair<std::string, std::string>> env;  // added to the computer's environment
  bool pty = false;
  std::int64_t rows = kPtyDefaultRows;
  std::int64_t cols = kPtyDefaultCols;
  std::int64_t wait_ms = 1000;
  std::int64_t max_bytes = kProcessDefaultMaxBytes;

  // The argv to execute, given the computer's shell.
  std::vector<std::string> resolved_argv(const std::string& shell) const {
    if (command) return {shell, "-c", *command};
    return argv;
  }

  static ProcessStartRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    ProcessStartRequest parsed;
    parsed.computer_id = valid_computer_id(doc);
    if (present(doc, "command") == present(doc, "argv")) {
      throw InvalidRequest("exactly one of command and argv is required");
    }
    std::size_t command_bytes = 0;
    if (present(doc, "command")) {
      parsed.command = required_string(doc, "command");
      command_bytes = parsed.command->size();
    } else {
      const auto& argv = doc["argv"];
      if (!argv.is_array() || argv.empty() || argv.size() > kProcessMaxArguments) {
        throw InvalidRequest("argv must be an array of 1 to " +
                             std::to_string(kProcessMaxArguments) + " strings");
      }
      for (const auto& arg : argv) {
        if (!arg.is_string()) throw InvalidRequest("argv must hold strings only");
        parsed.argv.push_back(arg.get<std::string>());
        command_bytes += parsed.argv.back().size() + 1;
      }
      if (parsed.argv.front().empty()) throw InvalidRequest("argv[0] must not be empty");
    }
    if (command_bytes > kProcessMaxCommandBytes) {
      throw InvalidRequest("the command is " + std::to_string(command_bytes) +
                           " bytes; at most " + std::to_string(kProcessMaxCommandBytes) +
                           " bytes are allowed");
    }
    parsed.working_directory = optional_string(doc, "working_directory",
                                               "working_directory must be a non-empty string");
    if (parsed.working_directory && parsed.working_directory->front() != '/') {
      throw InvalidRequest("working_directory must be an absolute path");
    }
    if (present(doc, "env")) parsed.env = parse_environment(doc["env"]);
    if (present(doc, "pty")) {
      if (!doc["pty"].is_boolean()) throw InvalidRequest("pty must be a boolean");
      parsed.pty = doc["pty"].get<bool>();
    }
    parsed.rows = integer_in(doc, "rows", kPtyMinRows, kPtyMaxRows, kPtyDefaultRows);
    parsed.cols = integer_in(doc, "cols", kPtyMinCols, kPtyMaxCols, kPtyDefaultCols);
    std::tie(parsed.wait_ms, parsed.max_bytes) = process_wait(doc);
    return parsed;
  }

 private:
  static std::vector<std::pair<std::string, std::string>> parse_environment(
      const nlohmann::json& env) {
    if (!env.is_object() || env.size() > kProcessMaxEnvironment) {
      throw InvalidRequest("env must be an object of at most " +
                           std::to_string(kProcessMaxEnvironment) + " variables");
    }
    std::vector<std::pair<std::string, std::string>> variables;
    std::size_t bytes = 0;
    for (auto it = env.begin(); it != env.end(); ++it) {
      if (!is_valid_environment_name(it.key())) {
        throw InvalidRequest("env: \"" + it.key().substr(0, 64) +
                             "\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
      }
      if (!it->is_string()) throw InvalidRequest("env." + it.key() + " must be a string");
      variables.emplace_back(it.key(), it->get<std::string>());
      bytes += it.key().size() + variables.back().second.size() + 2;
    }
    if (bytes > kProcessMaxEnvironmentBytes) {
      throw InvalidRequest("env is " + std::to_string(bytes) + " bytes; at most " +
                           std::to_string(kProcessMaxEnvironmentBytes) + " bytes are allowed");
    }
    return variables;
  }
};

// read_process: {"computer_id","process_id","wait_ms"?,"max_bytes"?,"from"?:{"stdout","stderr"}}
struct ProcessReadRequest {
  std::string computer_id;
  std::string process_id;
  std::int64_t wait_ms = 1000;
  std::int64_t max_bytes = kProcessDefaultMaxBytes;
  // Offsets to read from without moving the read position; nullopt: from the read position.
  std::optional<std::pair<std::int64_t, std::int64_t>> from;

  static ProcessReadRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    ProcessReadRequest parsed;
    parsed.computer_id = valid_computer_id(doc);
    parsed.process_id = valid_process_id(doc);
    std::tie(parsed.wait_ms, parsed.max_bytes) = process_wait(doc);
    parsed.from = output_from(doc);
    return parsed;
  }
};

// write_process: {"computer_id","process_id","input","close_stdin"?,"wait_ms"?,"max_bytes"?,
//                 "from"?}
struct ProcessWriteRequest {
  std::string computer_id;
  std::string process_id;
  std::string input;  // may be empty (with close_stdin: only close)
  bool close_stdin = false;
  std::int64_t wait_ms = 1000;
  std::int64_t max_bytes = kProcessDefaultMaxBytes;
  // The output that follows taken from these offsets, the read position left where it is.
  std::optional<std::pair<std::int64_t, std::int64_t>> from;

  static ProcessWriteRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    ProcessWriteRequest parsed;
    parsed.computer_id = valid_computer_id(doc);
    parsed.process_id = valid_process_id(doc);
    auto input = doc.find("input");
    if (input == doc.end() || !input->is_string()) throw InvalidRequest("input must be a string");
    parsed.input = input->get<std::string>();
    if (parsed.input.size() > kProcessMaxInputBytes) {
      throw InvalidRequest("input is " + std::to_string(parsed.input.size()) +
                           " bytes; at most " + std::to_string(kProcessMaxInputBytes) +
                           " bytes can be written at once");
    }
    if (present(doc, "close_stdin")) {
      if (!doc["close_stdin"].is_boolean()) throw InvalidRequest("close_stdin must be a boolean");
      parsed.close_stdin = doc["close_stdin"].get<bool>();
    }
    std::tie(parsed.wait_ms, parsed.max_bytes) = process_wait(doc);
    parsed.from = output_from(doc);
    return parsed;
  }
};

// kill_process: {"computer_id","process_id","signal"?,"from"?} (default "TERM")
struct ProcessKillRequest {
  std::string computer_id;
  std::string process_id;
  std::string signal = "TERM";
  // The last output taken from these offsets, the read position left where it is.
  std::optional<std::pair<std::int64_t, std::int64_t>> from;

  static ProcessKillRequest parse(const nlohmann::json& doc) {
    using namespace request_fields;
    ProcessKillRequest parsed;
    parsed.computer_id = valid_computer_id(doc);
    parsed.process_id = valid_process_id(doc);
    if (present(doc, "signal")) {
      const auto& signal = doc["signal"];
      if (!signal.is_string() || !is_process_signal_name(signal.get_ref<const std::string&>())) {
        throw InvalidRequest(
            "signal must be one of TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP, CONT, WINCH");
      }
      parsed.signal = signal.get<std::string>();
    }
    parsed.from = request_fields::output_from(doc);
    return parsed;
  }
};

}  // namespace vc::sdk
