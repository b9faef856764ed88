// checkpoint_name.h — the checkpoint name rule of the checkpoints extension
// (ext/vc_backend_checkpoints.h, schemas/checkpoint_info.json).
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). A checkpoint
// name ends up in engine image tags and object names, so it is checked before it is used.
#pragma once

#include <cstddef>
#include <string_view>

namespace vc::sdk {

inline constexpr std::size_t kCheckpointNameMaxLength = 63;

// [any-thread] True for 1-63 characters of [A-Za-z0-9._-] starting with a letter or digit.
inline bool is_valid_checkpoint_name(std::string_view name) {
  if (name.empty() || name.size() > kCheckpointNameMaxLength) return false;
  auto is_alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  for (char c : name) {
    if (!is_alnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return is_alnum(name.front());
}

// The sentence an invalid checkpoint name is refused with.
inline constexpr const char* kCheckpointNameRule =
    "a checkpoint name must be 1-63 letters, digits, '.', '_' or '-', starting with a letter "
    "or digit (for example \"before-upgrade\" or \"v1.2\").";

}  // namespace vc::sdk
