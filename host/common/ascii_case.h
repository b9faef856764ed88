// ascii_case.h — lower-casing of protocol words (header names, flags, answers), ASCII only.
//
// What the host compares without regard to case is always ASCII (HTTP field names, "yes",
// "true", window classes): the C locale's tolower, byte by byte, is the right fold, and bytes
// above 0x7F pass through unchanged. Any thread.
#pragma once

#include <string>
#include <string_view>

namespace vc {

// `text` with A-Z turned into a-z; every other byte as it was.
inline std::string ascii_lower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lowered;
}

}  // namespace vc
