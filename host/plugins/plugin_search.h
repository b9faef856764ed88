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
#include "plugins/plugin_module.h"

namespace vc::plugins {

std::vector<std::filesystem::path> plugin_search_path(
    const std::vector<std::filesystem::path>& plugin_dirs);

// File name of the plugin called `name`: "vc-backend-<name>.so".
std::string plugin_file_name(const std::string& name);

// Resolves --backend VALUE: a value containing '/' or ending in ".so" is a path to a file;
// otherwise the first vc-backend-VALUE.so on the search path. The failure message for an
// unknown name lists the available backends.
Expected<std::shared_ptr<PluginModule>> find_and_load_backend(
    const std::string& backend, const std::vector<std::filesystem::path>& search_path);

struct SkippedFile {
  std::filesystem::path path;
  std::string reason;
};

struct Discovery {
  std::vector<PluginInfo> plugins;  // loadable, first occurrence of each name
  std::vector<SkippedFile> skipped; // not loadable, shadowed by an earlier file, ...
};

// Loads every *.so on the search path (for `mcp-virtual-computer plugins`).
Discovery discover_plugins(const std::vector<std::filesystem::path>& search_path);

// Human-readable listing of a Discovery, as `mcp-virtual-computer plugins` prints it.
std::string format_discovery(const Discovery& discovery);

}  // namespace vc::plugins
