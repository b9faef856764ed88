// base64.h — standard base64 (RFC 4648 §4, with padding), for file contents that cross the
// container boundary as text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vc {

std::string base64_encode(std::string_view bytes);
// nullopt when `text` is not canonical padded base64 (whitespace is not allowed).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace vc
