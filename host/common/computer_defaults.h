// computer_defaults.h — how a computer is set up and used when the command line says nothing
// (docs/compatibility.md, "Defaults"). Written once here: the command line's defaults, the
// computers room's settings and a bare ExecRequest all start from these values.
#pragma once

#include <cstdint>
#include <string_view>

namespace vc::defaults {

inline constexpr std::string_view kComputerId = "virtual-computer";
inline constexpr std::string_view kShell = "/bin/bash";
inline constexpr std::string_view kWorkspaceDirectory = "/workspace";
inline constexpr bool kNetworkAccess = true;
inline constexpr bool kDesktopEnvironment = false;
inline constexpr int64_t kCommandTimeoutS = 120;      // a command's timeout when none is named
inline constexpr uint64_t kOutputLimit = 2097152;     // stdout and stderr bytes together

}  // namespace vc::defaults
