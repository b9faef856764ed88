// computer_id.h — the computer_id slug rule of the SDK (schemas/computer_info.json).
//
// The template turns a computer_id straight into a directory name, so this check is what keeps
// "../../etc" and friends out of the file system: every request is checked before use.
#pragma once

#include <string_view>

namespace vc_template {

// 1-63 characters of [a-z0-9-], starting and ending with a letter or digit.
inline bool is_valid_computer_id(std::string_view id) {
  if (id.empty() || id.size() > 63) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  for (char c : id) {
    if (!alnum(c) && c != '-') return false;
  }
  return alnum(id.front()) && alnum(id.back());
}

}  // namespace vc_template
