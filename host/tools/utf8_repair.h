// utf8_repair.h — command output as valid UTF-8, the way the original decoded it.
#pragma once

#include <string>
#include <string_view>

namespace vc::tools {

// `bytes` decoded as UTF-8 and re-encoded, each invalid sequence replaced by U+FFFD: one per
// maximal subpart of an ill-formed sequence (Unicode §3.9, the WHATWG decoder, Python's
// bytes.decode("utf-8", "replace")). Overlong forms, surrogates (ED A0..BF), code points
// above U+10FFFF, stray continuation bytes and sequences cut short all count as invalid.
std::string repair_utf8(std::string_view bytes);

}  // namespace vc::tools
