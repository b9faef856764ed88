// ascii_text.h — protocol words and short answers as the host compares them: lower-cased and
// trimmed by ASCII rules only.
//
// What the host compares without regard to case or surrounding blanks is always ASCII (HTTP
// field names, "yes", "true", window classes, a token from the environment, a line a script
// printed): the C locale's rules, byte by byte, are the right ones, and bytes above 0x7F pass
// through unchanged. Any thread.
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

// `text` without the ASCII whitespace (space, \t, \n, \r, \f, \v) at either end, as
// Python's str.strip() with no argument treats ASCII text.
inline std::string trim_ascii_whitespace(std::string_view text) {
  constexpr std::string_view kWhitespace = " \t\n\r\f\v";
  const auto first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  const auto last = text.find_last_not_of(kWhitespace);
  return std::string(text.substr(first, last - first + 1));
}

}  // namespace vc
