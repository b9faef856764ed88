// python_style_json.h — JSON text exactly as Python's json.dumps(obj) writes it by default.
//
// The original server put json.dumps(payload) into every tool result's text content, and
// clients (and their tests) compare that text. Defaults reproduced here:
//   - separators ", " between items and ": " after keys, no newlines;
//   - ensure_ascii: every character outside printable ASCII (0x20..0x7e) is escaped as \uXXXX
//     with lowercase hex, characters above U+FFFF as a UTF-16 surrogate pair;
//   - keys in the order the object holds them;
//   - floats as Python's repr: fixed or exponent notation at the same thresholds, round-trip
//     digits (in rare ties the last digit may differ: nlohmann's Grisu2 is not always the
//     closest shortest form), NaN/Infinity/-Infinity for non-finite values.
// Invalid UTF-8 in a string becomes U+FFFD, as Python's decode(errors="replace") would have
// produced before dumping.
#pragma once

#include <string>

#include "common/json.h"

namespace vc::mcp {

std::string dump_python_style(const Json& value);

}  // namespace vc::mcp
