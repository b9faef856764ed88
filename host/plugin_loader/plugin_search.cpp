// plugin_search.cpp — the plugin search path and resolving --backend.
#include "plugin_loader/plugin_search.h"

#include "plugin_loader/plugin_discovery.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <system_error>


#ifndef VC_PLUGIN_RELATIVE_DIR
#define VC_PLUGIN_RELATIVE_DIR "../lib/mcp-virtual-computer/backends"
#endif

namespace vc::plugins {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPluginPathVariable = "MCP_VIRTUAL_COMPUTER_PLUGIN_PATH";

// Absolute, normalised, without a trailing separator, so equal directories compare equal.
fs::path normalised_dir(const fs::path& dir) {
  std::error_code error;
  fs::path absolute_dir = fs::absolute(dir, error);
  if (error) absolute_dir = dir;
  absolute_dir = absolute_dir.lexically_normal();
  if (!absolute_dir.has_filename() && absolute_dir != absolute_dir.root_path()) {
    absolute_dir = absolute_dir.parent_path();
  }
  return absolute_dir;
}

std::vector<fs::path> split_path_list(std::string_view list) {
  std::vector<fs::path> dirs;
  while (!list.empty()) {
    const size_t colon = list.find(':');
    const std::string_view entry = list.substr(0, colon);
    if (!entry.empty()) dirs.emplace_back(entry);
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return dirs;
}

bool looks_like_a_path(const std::string& backend) {
  const std::string_view suffix = ".so";
  return backend.find('/') != std::string::npos ||
         (backend.size() >= suffix.size() &&
          backend.compare(backend.size() - suffix.size(), suffix.size(), suffix) == 0);
}

std::string join(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += ", ";
    text += item;
  }
  return text;
}

std::string searched_list(const std::vector<fs::path>& search_path) {
  if (search_path.empty()) return "no directories";
  std::vector<std::string> dirs;
  for (const fs::path& dir : search_path) dirs.push_back(dir.string());
  return join(dirs);
}

Failure unknown_backend(const std::string& backend, const std::vector<fs::path>& search_path) {
  std::vector<std::string> names;
  for (const PluginInfo& plugin : discover_plugins(search_path).plugins) {
    names.push_back(plugin.name);
  }
  const std::string searched = "(searched: " + searched_list(search_path) + ")";
  if (names.empty()) {
    return Failure{VC_E_NOT_FOUND, "No backend plugin named '" + backend +
                                       "', and no backend plugins were found " + searched + "."};
  }
  return Failure{VC_E_NOT_FOUND, "No backend plugin named '" + backend + "'. Available backends: " +
                                     join(names) + " " + searched + "."};
}

}  // namespace

fs::path builtin_plugin_dir() {
  std::error_code error;
  const fs::path executable = fs::read_symlink("/proc/self/exe", error);
  if (error || executable.empty()) return {};
  return normalised_dir(executable.parent_path() / VC_PLUGIN_RELATIVE_DIR);
}

std::vector<fs::path> plugin_search_path(const std::vector<fs::path>& plugin_dirs) {
  std::vector<fs::path> search_path;
  auto add = [&search_path](const fs::path& dir) {
    if (dir.empty()) return;
    fs::path normalised = normalised_dir(dir);
    if (std::find(search_path.begin(), search_path.end(), normalised) == search_path.end()) {
      search_path.push_back(std::move(normalised));
    }
  };
  for (const fs::path& dir : plugin_dirs) add(dir);
  // secure_getenv: a setuid/setgid host must not load code from a directory its caller names.
  if (const char* variable = ::secure_getenv(kPluginPathVariable)) {
    for (const fs::path& dir : split_path_list(variable)) add(dir);
  }
  add(builtin_plugin_dir());
  return search_path;
}

std::string plugin_file_name(const std::string& name) { return "vc-backend-" + name + ".so"; }

Expected<std::shared_ptr<PluginModule>> find_and_load_backend(
    const std::string& backend, const std::vector<fs::path>& search_path) {
  if (backend.empty()) {
    return Failure{VC_E_INVALID_ARGUMENT,
                   "No backend given: use --backend NAME or --backend /path/to/plugin.so."};
  }
  if (looks_like_a_path(backend)) return PluginModule::load(backend);

  const std::string file_name = plugin_file_name(backend);
  for (const fs::path& dir : search_path) {
    const fs::path candidate = dir / file_name;
    std::error_code error;
    if (!fs::exists(fs::symlink_status(candidate, error))) continue;
    auto module = PluginModule::load(candidate);
    if (module && module.value()->info().name != backend) {
      spdlog::warn("{} provides the backend '{}', not '{}'; using it because of its file name",
                   candidate.string(), module.value()->info().name, backend);
    }
    return module;
  }
  return unknown_backend(backend, search_path);
}

}  // namespace vc::plugins
