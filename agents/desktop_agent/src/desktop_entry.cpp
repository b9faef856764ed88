// desktop_entry.cpp — XDG_DATA_HOME before XDG_DATA_DIRS, the [Desktop Entry] group only.
#include "desktop_entry.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>

#include "argv_split.h"
#include "detached_spawn.h"

namespace vc::desktop_agent {
namespace {

std::vector<std::string> application_folders(const Environment& environment) {
  std::vector<std::string> folders;
  auto value = [&](const char* key) {
    auto it = environment.find(key);
    return it != environment.end() ? it->second : std::string();
  };
  std::string data_home = value("XDG_DATA_HOME");
  if (data_home.empty()) {
    const std::string home = value("HOME").empty() ? "/home/computer" : value("HOME");
    data_home = home + "/.local/share";
  }
  folders.push_back(data_home + "/applications");
  std::string dirs = value("XDG_DATA_DIRS");
  if (dirs.empty()) dirs = "/usr/local/share:/usr/share";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    if (end > start) folders.push_back(dirs.substr(start, end - start) + "/applications");
    start = end + 1;
  }
  return folders;
}

std::optional<DesktopEntry> read_entry(const std::string& path, const Environment& environment) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::string line;
  bool in_group = false;
  std::string exec, try_exec, type;
  bool hidden = false, terminal = false;
  while (std::getline(file, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      in_group = line == "[Desktop Entry]";
      continue;
    }
    if (!in_group) continue;
    const std::size_t equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string key = line.substr(0, equals);
    while (!key.empty() && key.back() == ' ') key.pop_back();
    std::string value = line.substr(equals + 1);
    while (!value.empty() && value.front() == ' ') value.erase(0, 1);
    if (key == "Exec") exec = unescape_entry_value(value);
    else if (key == "TryExec") try_exec = unescape_entry_value(value);
    else if (key == "Type") type = value;
    else if (key == "Hidden") hidden = value == "true";
    else if (key == "Terminal") terminal = value == "true";
  }
  if (hidden || exec.empty() || (!type.empty() && type != "Application")) return std::nullopt;
  if (!try_exec.empty() && find_executable(try_exec, environment).empty()) return std::nullopt;
  auto argv = exec_arguments(exec);
  if (!argv || argv->empty()) return std::nullopt;
  return DesktopEntry{path, *argv, terminal};
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::optional<DesktopEntry> find_desktop_entry(const std::string& id,
                                               const Environment& environment) {
  if (id.empty() || id.find('/') != std::string::npos || id.find(' ') != std::string::npos) {
    return std::nullopt;
  }
  const std::string file = ends_with(id, ".desktop") ? id : id + ".desktop";
  const std::vector<std::string> folders = application_folders(environment);
  for (const std::string& folder : folders) {
    if (auto entry = read_entry(folder + "/" + file, environment)) return entry;
    // Ids with dashes may live in subfolders: kde-foo.desktop is kde/foo.desktop.
    const std::size_t dash = file.find('-');
    if (dash != std::string::npos) {
      std::string nested = file;
      nested[dash] = '/';
      if (auto entry = read_entry(folder + "/" + nested, environment)) return entry;
    }
  }
  // "mousepad" for org.xfce.mousepad.desktop: the last component of a reverse-DNS id.
  const std::string tail = "." + file;
  for (const std::string& folder : folders) {
    DIR* dir = opendir(folder.c_str());
    if (dir == nullptr) continue;
    std::vector<std::string> names;
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (ends_with(name, tail)) names.push_back(name);
    }
    closedir(dir);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      if (auto entry = read_entry(folder + "/" + name, environment)) return entry;
    }
  }
  return std::nullopt;
}

}  // namespace vc::desktop_agent
