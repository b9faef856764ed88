// session_env.cpp — reads /proc/<pid>/environ of the session's processes (same user) and the
// dbus-launch address files.
#include "session_env.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "file_read.h"

extern char** environ;

namespace vc::desktop_agent {
namespace {

Environment parse_environ(const std::string& raw) {
  Environment out;
  std::size_t start = 0;
  while (start < raw.size()) {
    std::size_t end = raw.find('\0', start);
    if (end == std::string::npos) end = raw.size();
    const std::string entry = raw.substr(start, end - start);
    const std::size_t equals = entry.find('=');
    if (equals != std::string::npos && equals > 0) out[entry.substr(0, equals)] = entry.substr(equals + 1);
    start = end + 1;
  }
  return out;
}

// ":99" and ":99.0" name the same display.
std::string display_number(const std::string& display) {
  const std::size_t colon = display.rfind(':');
  if (colon == std::string::npos) return std::string();
  std::string number = display.substr(colon + 1);
  const std::size_t dot = number.find('.');
  if (dot != std::string::npos) number.resize(dot);
  return number;
}

// A unix:path= address must name a socket that exists; other transports are taken on trust.
bool address_usable(const std::string& address) {
  const std::string key = "unix:path=";
  if (address.compare(0, key.size(), key) != 0) return !address.empty();
  std::string path = address.substr(key.size());
  const std::size_t comma = path.find(',');
  if (comma != std::string::npos) path.resize(comma);
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

std::string home_directory() {
  const char* home = getenv("HOME");
  return home != nullptr && *home != '\0' ? home : "/home/computer";
}

}  // namespace

Environment own_environment() {
  Environment out;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::size_t equals = text.find('=');
    if (equals != std::string::npos && equals > 0) out[text.substr(0, equals)] = text.substr(equals + 1);
  }
  return out;
}

std::optional<Environment> session_process_environment(const std::string& display) {
  // The panel starts what a person clicks; the others carry the same session variables.
  static const char* const kPreferred[] = {"xfce4-panel", "xfce4-session", "xfwm4",
                                           "xfdesktop", "xfsettingsd"};
  const uid_t uid = getuid();
  std::optional<Environment> best;
  int best_rank = 1000;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return std::nullopt;
  while (dirent* entry = readdir(proc)) {
    const std::string pid = entry->d_name;
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    struct stat info {};
    if (stat(("/proc/" + pid).c_str(), &info) != 0 || info.st_uid != uid) continue;
    std::string comm = read_file_or_empty("/proc/" + pid + "/comm");
    while (!comm.empty() && (comm.back() == '\n' || comm.back() == '\0')) comm.pop_back();
    int rank = -1;
    for (int i = 0; i < static_cast<int>(sizeof kPreferred / sizeof kPreferred[0]); ++i) {
      if (comm == kPreferred[i]) rank = i;
    }
    if (rank < 0 || rank >= best_rank) continue;
    Environment environment = parse_environ(read_file_or_empty("/proc/" + pid + "/environ"));
    auto it = environment.find("DISPLAY");
    if (it == environment.end() || display_number(it->second) != display_number(display)) continue;
    if (environment.count("DBUS_SESSION_BUS_ADDRESS") == 0) continue;
    best = std::move(environment);
    best_rank = rank;
  }
  closedir(proc);
  return best;
}

std::optional<std::string> session_bus_address(const std::string& display) {
  if (auto environment = session_process_environment(display)) {
    const std::string& address = (*environment)["DBUS_SESSION_BUS_ADDRESS"];
    if (address_usable(address)) return address;
  }
  // dbus-launch's files: "<machine id>-<display>", lines KEY=VALUE with VALUE quoted.
  const std::string folder = home_directory() + "/.dbus/session-bus";
  const std::string suffix = "-" + display_number(display);
  std::string machine_id = read_file_or_empty("/etc/machine-id");
  while (!machine_id.empty() && (machine_id.back() == '\n' || machine_id.back() == ' ')) machine_id.pop_back();
  std::vector<std::string> candidates;
  if (!machine_id.empty()) candidates.push_back(folder + "/" + machine_id + suffix);
  if (DIR* dir = opendir(folder.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name.size() > suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
        candidates.push_back(folder + "/" + name);
      }
    }
    closedir(dir);
  }
  for (const std::string& path : candidates) {
    std::istringstream lines(read_file_or_empty(path));
    std::string line;
    while (std::getline(lines, line)) {
      const std::string key = "DBUS_SESSION_BUS_ADDRESS=";
      if (line.compare(0, key.size(), key) != 0) continue;
      std::string value = line.substr(key.size());
      if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
        value = value.substr(1, value.size() - 2);
      }
      if (address_usable(value)) return value;
    }
  }
  return std::nullopt;
}

Environment launch_environment(const std::string& display) {
  if (auto session = session_process_environment(display)) return *session;
  Environment environment = own_environment();
  environment["DISPLAY"] = display;
  if (auto address = session_bus_address(display)) {
    environment["DBUS_SESSION_BUS_ADDRESS"] = *address;
  }
  return environment;
}

std::vector<std::string> environment_strings(const Environment& environment) {
  std::vector<std::string> out;
  out.reserve(environment.size());
  for (const auto& [key, value] : environment) out.push_back(key + "=" + value);
  return out;
}

}  // namespace vc::desktop_agent
