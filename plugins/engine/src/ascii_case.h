// ascii_case.h — lower-casing of protocol words (HTTP field names, URL schemes), ASCII only.
// Private to the engine library. Any thread.
#pragma once

#include <string>
#include <string_view>

namespace vc::engine {

// `text` with A-Z turned into a-z; every other byte as it was.
inline std::string ascii_lower(std::string_view text) {
  std::string lowered(text);
  for (char& c : lowered) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return lowered;
}

}  // namespace vc::engine
