// launch.cpp — classification of the target, the spawn, and the wait for its first window.
#include "launch.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "argv_split.h"
#include "desktop_entry.h"
#include "file_read.h"
#include "session_env.h"
#include "detached_spawn.h"
#include "focus_guard.h"
#include "vc_agent_common/clock.h"

namespace vc::desktop_agent {

using agent_common::monotonic_ms;
namespace {

constexpr int kWindowWaitMs = 5000;
constexpr int kRecheckMs = 100;
constexpr const char* kLaunchLog = "/tmp/vc-logs/launch.log";

bool is_url(const std::string& target) {
  if (target.compare(0, 7, "mailto:") == 0) return true;
  const std::size_t colon = target.find("://");
  if (colon == std::string::npos || colon == 0) return false;
  if (!std::isalpha(static_cast<unsigned char>(target[0]))) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = target[i];
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '+' && c != '.' && c != '-') {
      return false;
    }
  }
  return target.compare(0, 7, "file://") != 0;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// The file system path a path-like target names, or empty when the target is no path.
std::string path_of(const std::string& target, const Environment& environment) {
  if (target.compare(0, 7, "file://") == 0) {
    std::string rest = target.substr(7);
    // file://host/path: only the local host is meaningful here.
    const std::size_t slash = rest.find('/');
    if (slash == std::string::npos) return "/";
    return percent_decode(rest.substr(slash));
  }
  if (!target.empty() && target[0] == '/') return target;
  if (target == "~" || target.compare(0, 2, "~/") == 0) {
    auto it = environment.find("HOME");
    const std::string home = it != environment.end() && !it->second.empty() ? it->second
                                                                            : "/home/computer";
    return home + target.substr(1);
  }
  return std::string();
}

pid_t parent_of(pid_t pid) {
  const std::string stat = read_file_or_empty("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  // pid (comm) state ppid ...
  int ppid = 0;
  char state = 0;
  if (sscanf(stat.c_str() + close + 1, " %c %d", &state, &ppid) != 2) return 0;
  return ppid;
}

bool alive(pid_t pid) {
  const std::string stat = read_file_or_empty("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

bool descends_from(pid_t pid, pid_t ancestor) {
  for (int depth = 0; depth < 16 && pid > 1; ++depth) {
    if (pid == ancestor) return true;
    pid = parent_of(pid);
  }
  return false;
}

}  // namespace

json launch_action(XConnection& x, Windows& windows, const Request& request) {
  std::string target = request.string("target");
  while (!target.empty() && std::isspace(static_cast<unsigned char>(target.back()))) target.pop_back();
  while (!target.empty() && std::isspace(static_cast<unsigned char>(target.front()))) target.erase(0, 1);
  if (target.empty()) throw_invalid("'target' must name an application, a file or a URL.");

  x.display();
  const Environment environment = launch_environment(x.display_name());
  std::vector<std::string> command;
  std::string opened_path;  // a file (not a folder) the target names
  bool any_new_window = false;
  if (is_url(target)) {
    command = {"xdg-open", target};
    any_new_window = true;
  } else if (const std::string path = path_of(target, environment); !path.empty()) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) throw_not_found("'" + target + "' does not exist.");
    command = {"xdg-open", path};
    if (S_ISREG(info.st_mode)) opened_path = path;
    any_new_window = true;
  } else if (auto entry = find_desktop_entry(target, environment)) {
    command = entry->argv;
    if (entry->terminal) command.insert(command.begin(), {"xfce4-terminal", "-x"});
  } else {
    auto words = split_words(target);
    if (!words) throw_invalid("'target' has an unterminated quote: " + target);
    if (words->empty()) throw_invalid("'target' must name an application, a file or a URL.");
    command = *words;
  }
  const std::string program = find_executable(command[0], environment);
  if (program.empty()) {
    if (command[0] == "xdg-open") throw_failed("xdg-open is not installed on this computer.");
    throw_not_found("No application or command named '" + target + "' was found.");
  }
  std::vector<std::string> argv = command;
  argv[0] = program;

  std::set<Window> before;
  bool have_window_manager = windows.window_manager_running();
  Window active_before = None;
  std::string active_title_before;
  if (have_window_manager) {
    for (Window window : windows.client_list()) before.insert(window);
    active_before = windows.active_window();
    if (auto info = windows.describe(active_before)) active_title_before = (*info)["title"];
  }
  auto home = environment.find("HOME");
  const std::string directory = home != environment.end() ? home->second : "/";
  mkdir("/tmp/vc-logs", 0755);
  const pid_t pid = spawn_detached(argv, environment, directory, kLaunchLog);

  json window = nullptr;
  if (have_window_manager) {
    auto find_new = [&]() -> bool {
      std::vector<Window> now;
      try {
        now = windows.client_list();
      } catch (const AgentError&) {
        return false;
      }
      // A program that handed its work to a running instance (mousepad, xfce4-terminal)
      // has exited: then any new window is its.
      const bool handed_over = any_new_window || !alive(pid);
      for (Window candidate : now) {
        if (before.count(candidate) != 0) continue;
        auto info = windows.describe(candidate);
        if (!info) continue;
        const json& owner = (*info)["pid"];
        if (handed_over ||
            (owner.is_number_integer() && descends_from(owner.get<pid_t>(), pid))) {
          window = *info;
          return true;
        }
      }
      // The running instance showed it in a window it already had (a new tab, say): that
      // window became active, or changed its title.
      if (handed_over) {
        const Window active = windows.active_window();
        if (active != None) {
          auto info = windows.describe(active);
          if (info && (active != active_before || (*info)["title"] != active_title_before)) {
            window = *info;
            return true;
          }
        }
      }
      return false;
    };
    // Events wake the check, and so does the time: a program that handed its work over exits
    // without any window event.
    const std::int64_t deadline = monotonic_ms() + kWindowWaitMs;
    for (std::int64_t left = kWindowWaitMs; left > 0; left = deadline - monotonic_ms()) {
      if (windows.wait_for(x.root(), static_cast<int>(std::min<std::int64_t>(left, kRecheckMs)),
                           find_new)) {
        break;
      }
    }
    // A file the agent showed earlier opens in the window that showed it: that window is the
    // agent's now, and later shows leave it alone (focus_guard.h).
    if (window.is_object()) {
      const Window id = static_cast<Window>(std::stoul(window["window_id"].get<std::string>(), nullptr, 16));
      if (!show_window_mark(x, id).empty()) unmark_show_window(x, id);
    }
  }
  json result{{"target", target}, {"pid", pid}, {"command", command}, {"window", window}};
  // Whether the desktop's user can save the file it opened.
  if (!opened_path.empty()) result["writable"] = access(opened_path.c_str(), W_OK) == 0;
  return result;
}

}  // namespace vc::desktop_agent
