// base64.h — standard base64 (RFC 4648 section 4, with padding), for file contents that cross
// the container boundary as text. The coding itself is OpenSSL's libcrypto.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vc {

// Any thread. One line: no line breaks however long the input.
std::string base64_encode(std::string_view bytes);
// Any thread. nullopt when `text` is not canonical padded base64: a length that is not a
// multiple of 4, a character outside the alphabet, whitespace, padding anywhere but the end,
// or set bits after the last byte (each byte string has exactly one encoding).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace vc
