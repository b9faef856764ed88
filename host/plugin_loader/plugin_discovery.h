// plugin_discovery.h — every plugin file on the search path, loadable or not, for
// `mcp-virtual-computer plugins`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "plugin_loader/plugin_module.h"

namespace vc::plugins {

struct SkippedFile {
  std::filesystem::path path;
  std::string reason;
};

struct SearchedDirectory {
  std::filesystem::path path;
  bool exists = false;
};

struct Discovery {
  std::vector<PluginInfo> plugins;          // loadable, first occurrence of each name
  std::vector<SkippedFile> skipped;         // not loadable, shadowed by an earlier file, ...
  std::vector<SearchedDirectory> searched;  // the search path, in order
};

// [loop-thread] Loads every *.so on the search path (for `mcp-virtual-computer plugins`), in
// search order and by file name within a directory. Files not ending in ".so" are ignored. A
// file is skipped, with the reason, when it cannot be loaded, when an earlier directory holds a
// file of the same name (--backend would load that one), or when its backend name does not
// match its file name (--backend NAME looks for vc-backend-NAME.so).
Discovery discover_plugins(const std::vector<std::filesystem::path>& search_path);

// [any-thread] Human-readable listing of a Discovery, as `mcp-virtual-computer plugins` prints
// it: one block per plugin (name, version, ABI, id, description, capabilities, options, path),
// then each skipped file with its reason, then the directories searched.
std::string format_discovery(const Discovery& discovery);

}  // namespace vc::plugins
