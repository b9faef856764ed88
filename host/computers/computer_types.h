// computer_types.h — the domain types of the computers room (the original's backends/base.py).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/json.h"
#include "common/computer_defaults.h"

namespace vc::computers {

// One command to run on the computer. Exactly one of `command` / `args` is set.
struct ExecRequest {
  std::optional<std::string> command;  // run as <shell> -c <command>
  std::vector<std::string> args;       // run directly, no shell
  std::string stdin_data;              // empty => the command sees EOF
  std::optional<std::string> working_directory;  // absolute; absent => the computer's workdir
  int64_t timeout_s = defaults::kCommandTimeoutS;
  uint64_t output_limit = defaults::kOutputLimit;  // combined stdout+stderr bytes
};

enum class ExecOutcome { exited, timed_out, output_limit_exceeded };

// A host folder mounted into a computer, as its backend reports it (docs/mounts.md).
struct ComputerMount {
  std::string host_path;
  std::string computer_path;
  bool read_only = false;

  bool operator==(const ComputerMount&) const = default;
};

// A computer as the backend reports it (the SDK's computer_info schema).
struct ComputerInfo {
  std::string computer_id;
  std::string sandbox_id;
  std::string state;  // "running", "stopped", ...
  bool temporary = false;
  std::optional<std::string> image;
  std::optional<std::string> created_at;
  bool network_access = true;
  bool desktop_environment = false;
  std::optional<std::string> desktop_url;
  // Optional sentences from the backend: what survives a restart; how network off is enforced.
  std::optional<std::string> persistence;
  std::optional<std::string> network_enforcement;
  // Optional: host folders mounted into the computer (empty when none or not reported).
  std::vector<ComputerMount> mounts;

  // Reads a computer info document. Unknown fields are ignored; absent or null optional fields
  // keep their defaults. Throws std::invalid_argument naming the field when the document is not
  // an object, "computer_id" is missing, or a field has the wrong JSON type.
  static ComputerInfo from_json(const Json& doc);
  // All fields, in declaration order; absent optionals are null, except persistence,
  // network_enforcement and mounts, which are left out when the backend did not say (or, for
  // mounts, when there are none).
  Json to_json() const;
  // A listing entry (the original's ComputerInfo): computer_id, sandbox_id, backend, state,
  // temporary, image, created_at, then network_access, desktop_environment, desktop_url.
  Json to_listing_json(const std::string& backend) const;
  // [{"host_path","computer_path","read_only"}, ...] of `mounts`.
  Json mounts_json() const;
};

// One progress report of a backend operation (the SDK's progress_event schema).
struct ProgressEvent {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};

struct ExecResult {
  std::string stdout_bytes;  // raw bytes (not yet UTF-8 decoded)
  std::string stderr_bytes;
  int exit_code = 0;
  ExecOutcome outcome = ExecOutcome::exited;
  int64_t duration_ms = 0;
  // The computer the command ran on, as last known when the command finished (its live
  // network and desktop state go into the tool result).
  ComputerInfo computer;
};

}  // namespace vc::computers
