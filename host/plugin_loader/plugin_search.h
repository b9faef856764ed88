// plugin_search.h — where backend plugins are looked for, and which files are found there.
//
// Order: every --plugin-dir (in the order given), then each entry of the colon-separated
// MCP_VIRTUAL_COMPUTER_PLUGIN_PATH (ignored for setuid/setgid processes), then the built-in
// directory: <directory of the executable>/../lib/mcp-virtual-computer/backends, which is both
// the build tree's and the install's plugin directory. A plugin named NAME lives in a file
// named vc-backend-NAME.so. The first file found wins.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/failure.h"
#include "plugin_loader/plugin_module.h"

namespace vc::plugins {

// [any-thread] The directories to search, in order, made absolute; a directory listed twice is
// kept at its first position. Empty MCP_VIRTUAL_COMPUTER_PLUGIN_PATH entries are skipped.
std::vector<std::filesystem::path> plugin_search_path(
    const std::vector<std::filesystem::path>& plugin_dirs);

// [any-thread] <directory of the executable>/VC_PLUGIN_RELATIVE_DIR (normalised), read from
// /proc/self/exe; empty if that cannot be read.
std::filesystem::path builtin_plugin_dir();

// File name of the plugin called `name`: "vc-backend-<name>.so".
std::string plugin_file_name(const std::string& name);

// [loop-thread] Resolves --backend VALUE: a value containing '/' or ending in ".so" is a path to
// a file; otherwise the first vc-backend-VALUE.so on the search path (if that file cannot be
// loaded, its refusal is the answer: the first file found wins). The failure message for an
// unknown name lists the available backends:
//   "No backend plugin named 'X'. Available backends: a, b (searched: dir1, dir2)."
Expected<std::shared_ptr<PluginModule>> find_and_load_backend(
    const std::string& backend, const std::vector<std::filesystem::path>& search_path);

}  // namespace vc::plugins
