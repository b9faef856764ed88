// plugin_discovery.cpp — see plugin_discovery.h.
#include "plugin_loader/plugin_discovery.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <string_view>
#include <system_error>

#include "plugin_loader/plugin_capabilities.h"
#include "plugin_loader/plugin_search.h"

namespace vc::plugins {

namespace {

namespace fs = std::filesystem;

bool has_so_suffix(const fs::path& file) { return file.extension() == ".so"; }

// The *.so entries of `dir`, sorted by name so listings are stable.
std::vector<fs::path> shared_object_files(const fs::path& dir, std::vector<SkippedFile>& skipped) {
  std::vector<fs::path> files;
  std::error_code error;
  fs::directory_iterator entries(dir, error);
  if (error) {
    skipped.push_back({dir, "cannot list the directory: " + error.message()});
    return files;
  }
  for (const fs::directory_entry& entry : entries) {
    if (has_so_suffix(entry.path())) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string text;
  for (const std::string& item : items) {
    if (!text.empty()) text += separator;
    text += item;
  }
  return text;
}

std::string abi_text(const PluginInfo& plugin) {
  return std::to_string(plugin.abi_major) + "." + std::to_string(plugin.abi_minor);
}

std::string capabilities_text(const PluginInfo& plugin) {
  const std::vector<std::string> names = capability_names(plugin.capabilities);
  return names.empty() ? "none" : join(names, ", ");
}

std::string options_text(const PluginInfo& plugin) {
  std::vector<std::string> flags;
  for (const OptionDecl& option : plugin.options) flags.push_back("--" + option.name);
  return join(flags, ", ");
}

std::string padded(const std::string& text, size_t width) {
  return text.size() >= width ? text : text + std::string(width - text.size(), ' ');
}

void format_plugins(std::ostringstream& out, const std::vector<PluginInfo>& plugins) {
  if (plugins.empty()) {
    out << "No backend plugins found.\n";
    return;
  }
  struct Row {
    std::string name, version, abi, id, capabilities;
  };
  std::vector<Row> rows{{"NAME", "VERSION", "ABI", "ID", "CAPABILITIES"}};
  for (const PluginInfo& plugin : plugins) {
    rows.push_back({plugin.name, plugin.version.empty() ? "-" : plugin.version, abi_text(plugin),
                    plugin.id, capabilities_text(plugin)});
  }
  size_t name_w = 0, version_w = 0, abi_w = 0, id_w = 0;
  for (const Row& row : rows) {
    name_w = std::max(name_w, row.name.size());
    version_w = std::max(version_w, row.version.size());
    abi_w = std::max(abi_w, row.abi.size());
    id_w = std::max(id_w, row.id.size());
  }
  out << "Backend plugins:\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    out << "  " << padded(row.name, name_w + 2) << padded(row.version, version_w + 2)
        << padded(row.abi, abi_w + 2) << padded(row.id, id_w + 2) << row.capabilities << "\n";
    if (i == 0) continue;
    const PluginInfo& plugin = plugins[i - 1];
    if (!plugin.description.empty()) out << "      " << plugin.description << "\n";
    if (!plugin.options.empty()) out << "      options: " << options_text(plugin) << "\n";
    out << "      path: " << plugin.path.string() << "\n";
  }
}

void format_skipped(std::ostringstream& out, const std::vector<SkippedFile>& skipped) {
  if (skipped.empty()) return;
  out << "\nSkipped files:\n";
  for (const SkippedFile& file : skipped) {
    out << "  " << file.path.string() << ": " << file.reason << "\n";
  }
}

void format_searched(std::ostringstream& out, const std::vector<SearchedDirectory>& searched) {
  out << "\nSearched directories, in order:\n";
  if (searched.empty()) out << "  (none)\n";
  for (const SearchedDirectory& dir : searched) {
    out << "  " << dir.path.string() << (dir.exists ? "" : " (does not exist)") << "\n";
  }
}

}  // namespace

Discovery discover_plugins(const std::vector<fs::path>& search_path) {
  Discovery discovery;
  std::map<std::string, fs::path> first_file_named;  // file name -> the file --backend loads
  for (const fs::path& dir : search_path) {
    std::error_code error;
    const bool exists = fs::is_directory(dir, error);
    discovery.searched.push_back({dir, exists});
    if (!exists) continue;
    for (const fs::path& file : shared_object_files(dir, discovery.skipped)) {
      const std::string file_name = file.filename().string();
      const auto [first, inserted] = first_file_named.emplace(file_name, file);
      if (!inserted) {
        discovery.skipped.push_back({file, "shadowed by " + first->second.string() +
                                               " (an earlier directory on the search path wins)"});
        continue;
      }
      auto module = load_plugin_file(file);
      if (!module) {
        discovery.skipped.push_back({file, module.error().message});
        continue;
      }
      const PluginInfo& info = module.value()->info();
      if (file_name != plugin_file_name(info.name)) {
        discovery.skipped.push_back({file, "it provides the backend '" + info.name +
                                               "', which --backend " + info.name +
                                               " looks for in a file named " +
                                               plugin_file_name(info.name) + "; rename the file"});
        continue;
      }
      discovery.plugins.push_back(info);
    }
  }
  return discovery;
}

std::string format_discovery(const Discovery& discovery) {
  std::ostringstream out;
  format_plugins(out, discovery.plugins);
  format_skipped(out, discovery.skipped);
  format_searched(out, discovery.searched);
  return out.str();
}

}  // namespace vc::plugins
