// env_flag.h — strict boolean environment variables (docs/compatibility.md, "Environment
// variables").
//
// NETWORK_ACCESS and DESKTOP_ENVIRONMENT accept 1/true/yes/on and 0/false/no/off, trimmed and
// case-insensitive. Anything else is a configuration error rather than a silent default: a
// typo must not turn the network on.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/failure.h"

namespace vc::cli {

// The failure message is "<NAME> must be one of true/false, 1/0, yes/no, or on/off; got '<v>'".
Expected<bool> parse_flag_value(std::string_view name, std::string_view value);

// The variable's value, or `fallback` when it is not set.
Expected<bool> read_env_flag(const char* name, bool fallback);

}  // namespace vc::cli
