// computer_id.h — the computer_id rule of every request (schemas/computer_info.json).
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). A computer_id
// often ends up in a path or an engine name, so requests are checked against this rule before
// the id is used for anything (requests.h does it for every typed request).
#pragma once

#include <string_view>

namespace vc::sdk {

// [any-thread] True for 1-63 characters of [a-z0-9-] that start and end with a letter or digit.
inline bool is_valid_computer_id(std::string_view id) {
  if (id.empty() || id.size() > 63) return false;
  auto is_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : id) {
    if (!is_alnum(c) && c != '-') return false;
  }
  return is_alnum(id.front()) && is_alnum(id.back());
}

// The sentence an invalid computer_id is refused with.
inline constexpr const char* kComputerIdRule =
    "computer_id must be 1-63 lowercase letters, numbers, or hyphens; it must start and end "
    "with a letter or number.";

}  // namespace vc::sdk
