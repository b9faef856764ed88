// text_checks.h — two small checks the loader and the credential sources share: whitespace
// trimmed off a token or URL, and whether bytes look like PEM (the loader passes certificates
// and keys on without parsing them; this only catches a wrong file or a DER one early).
//
// Pure inline functions. Any thread.
#pragma once

#include <string>
#include <string_view>

namespace vc::kubernetes {

// `text` without the spaces, tabs and line breaks around it.
inline std::string trim_whitespace(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

// True when `bytes` hold a PEM block's opening line.
inline bool looks_like_pem(std::string_view bytes) {
  return bytes.find("-----BEGIN ") != std::string_view::npos;
}

}  // namespace vc::kubernetes
