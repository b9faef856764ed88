// checkpoint_types.h — checkpoints of a computer's files as the computers room handles them
// (the SDK's checkpoint_info schema, ext/vc_backend_checkpoints.h): what one checkpoint is, what
// a checkpoint operation reports, what a fork asks for, and the name rule checked before any
// backend sees a name.
//
// [any-thread]: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/json.h"
#include "computers/computer_types.h"

namespace vc::computers {

// One checkpoint: the computer's files as they were when it was taken.
struct CheckpointInfo {
  std::string name;
  std::string computer_id;
  std::string created;      // RFC 3339, UTC
  uint64_t size_bytes = 0;  // what it adds to the image the computer was made from
  bool processes = false;   // false: files only, no running processes
  std::optional<bool> desktop_environment;  // whether Xfce was wanted then, when the backend says

  // Reads a checkpoint_info document; unknown fields are ignored. Throws std::invalid_argument
  // naming the field when a required one is missing or has the wrong JSON type.
  static CheckpointInfo from_json(const Json& doc);
  // {"name","computer_id","created","size_bytes","processes","desktop_environment"?}; the last
  // left out when the backend did not say.
  Json to_json() const;
};

// What create, restore and fork report: the checkpoint (none for a fork of the current files)
// and the computer as it is afterwards (the new one, for a fork).
struct CheckpointOutcome {
  std::optional<CheckpointInfo> checkpoint;
  ComputerInfo computer;
};

// A computer's checkpoints, oldest first.
struct CheckpointListing {
  std::string computer_id;
  std::vector<CheckpointInfo> checkpoints;
};

// A new computer made from a computer's checkpoint, or from its current files when
// `checkpoint` is absent. The source computer is untouched.
struct ForkSpec {
  std::optional<std::string> computer_id;  // the source; nullopt: the server's own computer
  std::string new_computer_id;             // a computer id not in use
  std::optional<std::string> checkpoint;
};

// Why `name` cannot name a checkpoint ("'a b' is not a checkpoint name: a checkpoint name must
// be 1-63 letters, ..."), or nullopt when it can. The rule is the SDK's
// (cpp/checkpoint_name.h): 1-63 of [A-Za-z0-9._-], starting with a letter or digit.
std::optional<std::string> checkpoint_name_problem(std::string_view name);

}  // namespace vc::computers
