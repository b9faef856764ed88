// utf8_repair.h — text kept valid UTF-8: command output decoded the way the original decoded it,
// and cuts that never split a character. Any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace vc {

// `bytes` decoded as UTF-8 and re-encoded, each invalid sequence replaced by U+FFFD: one per
// maximal subpart of an ill-formed sequence (Unicode §3.9, the WHATWG decoder, Python's
// bytes.decode("utf-8", "replace")). Overlong forms, surrogates (ED A0..BF), code points
// above U+10FFFF, stray continuation bytes and sequences cut short all count as invalid.
std::string repair_utf8(std::string_view bytes);

// The offset of the first byte that is not part of a well-formed UTF-8 sequence (by the same
// rules), or nullopt when `bytes` is valid UTF-8 throughout.
std::optional<size_t> first_invalid_utf8(std::string_view bytes);

// The longest prefix of `text` of at most `limit` bytes that does not end inside a UTF-8
// sequence: a message cut to a size stays as valid as it was. `text` itself when it fits.
std::string utf8_prefix(std::string_view text, size_t limit);

}  // namespace vc
