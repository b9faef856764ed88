// app_bundle.h — the MCP App's one HTML file (docs/app.md): where it is installed and how it
// is read.
//
// The file is read on every request rather than kept in memory: an idle server then holds
// none of its ~600 KiB, and a rebuilt App is served without a restart.
//
// [any-thread]: plain file reads, no state.
#pragma once

#include <cstddef>
#include <filesystem>

#include "common/failure.h"

namespace vc::tools {

inline constexpr const char* kAppResourceUri = "ui://virtual-computer/computer.html";
inline constexpr const char* kAppMimeType = "text/html;profile=mcp-app";
// Larger files are refused: the App is a few hundred KiB; anything far bigger is not it.
inline constexpr size_t kAppMaxBytes = 16 * 1024 * 1024;

// <directory of this executable>/../share/mcp-virtual-computer/computer.html (the build tree
// and the install tree have the same layout); empty when /proc/self/exe cannot be read.
std::filesystem::path default_app_file();

// The file's bytes, or a Failure that names the file and says how to get it.
Expected<std::string> read_app_file(const std::filesystem::path& path);

}  // namespace vc::tools
