// show_file.cpp — Thunar and Mousepad driven through their command lines and the keyboard,
// each step waited for on window-manager events or screen damage.
#include "show_file.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>

#include "vc_agent_common/clock.h"
#include "input_actions.h"
#include "session_env.h"
#include "detached_spawn.h"
#include "focus_guard.h"
#include "x_properties.h"

namespace vc::desktop_agent {

using agent_common::monotonic_ms;

namespace {

constexpr int kShowTimeoutMs = 10000;
constexpr int kFolderTimeoutMs = 5000;
constexpr int kWindowWaitMs = 1000;
constexpr int kRetryAfterMs = 2000;
// The longest line searched for: Mousepad's search entry is one line, and a prefix finds
// the change as well.
constexpr std::size_t kSearchChars = 120;

std::string base_name(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos || slash == 0) return "/";
  return path.substr(0, slash);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The first line of the new text that has something to find.
std::string search_line(const std::string& text) {
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos) {
      line = line.substr(first);
      // Cut at a character boundary.
      if (line.size() > kSearchChars) {
        std::size_t cut = kSearchChars;
        while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
        line.resize(cut);
      }
      // Tabs and control characters would end the search or move the focus.
      for (char& c : line) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';
      }
      return line;
    }
    start = end + 1;
  }
  return std::string();
}

}  // namespace

FileShow::FileShow(XConnection& x, Windows& windows, Keyboard& keyboard, DamageWatch& damage)
    : x_(x), windows_(windows), keyboard_(keyboard), damage_(damage) {}

void FileShow::mark(Window window, const std::string& what) { mark_show_window(x_, window, what); }

Window FileShow::find_marked(const std::string& what) {
  for (Window window : windows_.client_list()) {
    if (show_window_mark(x_, window) == what) return window;
  }
  return None;
}

void FileShow::keys(const std::string& keys) {
  json request{{"keys", keys}};
  press_keys_action(x_, keyboard_, Request(request));
}

void FileShow::type(const std::string& text) {
  json request{{"text", text}, {"delay_ms", 0}};
  type_action(x_, keyboard_, Request(request));
}

bool FileShow::screen(const char* until, int stable_ms, int timeout_ms) {
  json wait{{"until", until}, {"stable_ms", stable_ms}, {"timeout_ms", timeout_ms}};
  return damage_.wait_action(Request(wait)).value("result", "") != "timeout";
}

void FileShow::show_folder(const std::string& folder) {
  Window thunar = find_marked("folder");
  if (thunar != None) {
    // The same window, sent to the folder as a person would: the location bar.
    windows_.activate(thunar);
    windows_.wait_for(thunar, kWindowWaitMs, [&] { return windows_.active_window() == thunar; });
    // Typed only once the location bar is drawn: before, the keys would go to the file view.
    screen("stable", 100, 1000);
    keys("ctrl+l");
    screen("stable", 100, 1000);
    type(folder);
    keys("Return");
  } else {
    const Environment environment = launch_environment(x_.display_name());
    const std::string program = find_executable("thunar", environment);
    if (program.empty()) throw_failed("Thunar is not installed on this computer.");
    const std::vector<Window> before = windows_.client_list();
    mkdir("/tmp/vc-logs", 0755);
    spawn_detached({program, folder}, environment, folder, "/tmp/vc-logs/launch.log");
    windows_.wait_for(x_.root(), kFolderTimeoutMs, [&] {
      for (Window window : windows_.client_list()) {
        if (std::find(before.begin(), before.end(), window) != before.end()) continue;
        auto info = windows_.describe(window);
        if (info && contains((*info)["wm_class"].get<std::string>(), "hunar")) {
          mark(window, "folder");
          return true;
        }
      }
      return false;
    });
  }
  // Until the folder is drawn, so that it is seen before the file comes up.
  screen("stable", 150, 1500);
}

Window FileShow::open_in_mousepad(const std::string& path) {
  // The window of an earlier show is used again: Mousepad reloads an unmodified document when
  // its file changes (the image sets it so). Closing it and opening the file at once races
  // Mousepad's teardown of the document, which can end the whole instance.
  const Window shown_before = find_marked("file:" + path);
  if (shown_before != None) return shown_before;

  const Environment environment = launch_environment(x_.display_name());
  const std::string mousepad = find_executable("mousepad", environment);
  if (mousepad.empty()) throw_failed("Mousepad is not installed on this computer.");
  const std::vector<Window> before = windows_.client_list();
  const Window active_before = windows_.active_window();
  const std::string name = base_name(path);
  auto shows_file = [&](Window window) {
    auto info = windows_.describe(window);
    return info && contains((*info)["wm_class"].get<std::string>(), "ousepad") &&
           contains((*info)["title"].get<std::string>(), name);
  };
  mkdir("/tmp/vc-logs", 0755);
  const std::int64_t deadline = monotonic_ms() + kShowTimeoutMs;
  Window shown = None;
  auto found = [&] {
    for (Window window : windows_.client_list()) {
      if (std::find(before.begin(), before.end(), window) != before.end()) continue;
      if (shows_file(window)) {
        shown = window;
        return true;
      }
    }
    // Already open in a window of its own (a person's): Mousepad brings that one forward.
    const Window active = windows_.active_window();
    if (active != active_before && active != None && shows_file(active)) {
      shown = active;
      return true;
    }
    return false;
  };
  const std::vector<std::string> argv = {mousepad, "--opening-mode=window", "--line=1", path};
  const pid_t pid = spawn_detached(argv, environment, folder_of(path), "/tmp/vc-logs/launch.log");
  windows_.wait_for(x_.root(), kRetryAfterMs, found);
  // A Mousepad that was quitting (its last window just closed) took the request with it: the
  // program is gone and nothing showed up. A second start becomes the new instance.
  if (shown == None && kill(pid, 0) != 0) {
    spawn_detached(argv, environment, folder_of(path), "/tmp/vc-logs/launch.log");
  }
  if (shown == None) {
    windows_.wait_for(x_.root(),
                      static_cast<int>(std::max<std::int64_t>(0, deadline - monotonic_ms())), found);
  }
  if (shown == None) {
    throw_timeout("Mousepad did not show '" + path + "' within 10 seconds.");
  }
  mark(shown, "file:" + path);
  return shown;
}

json FileShow::action(const Request& request) {
  const std::string operation = request.choice("operation", {"read", "write", "edit"});
  const std::string& path = request.string("path");
  if (path.empty() || path[0] != '/') throw_invalid("'path' must be an absolute path.");
  const std::optional<std::string> new_text = request.optional_string("new_text");
  windows_.client_list();  // `unavailable` without a desktop, before anything opens
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) throw_not_found("'" + path + "' does not exist.");
  if (S_ISDIR(info.st_mode)) throw_invalid("'" + path + "' is a folder, not a file.");

  // The window the agent works in gets the focus back at the end; a file open there (the
  // agent launched it) is shown by Mousepad's reload alone, never moved about by keys.
  FocusGuard focus(x_, windows_);
  if (operation == "write") {
    show_folder(folder_of(path));
  }
  const Window window = open_in_mousepad(path);
  if (window == focus.working()) return json{{"window_id", window_id_text(window)}};
  windows_.activate(window);
  windows_.wait_for(window, kWindowWaitMs, [&] { return windows_.active_window() == window; });
  // Keys go to whatever has the focus: each step waits until the window has drawn what the
  // previous one opened, and the search is typed only once its bar showed up (never into
  // the document).
  screen("stable", 150, 2000);
  const std::string line = operation == "edit" && new_text ? search_line(*new_text) : "";
  if (!line.empty()) {
    keys("ctrl+f");
    if (screen("change", 50, 1000)) {
      screen("stable", 100, 1000);
      type(line);
      screen("stable", 100, 1000);
      // Return selects the first match below the cursor (at the top: the first one);
      // Escape closes the bar and leaves it selected.
      keys("Return");
      screen("stable", 100, 1000);
      keys("Escape");
    }
  } else {
    keys("ctrl+Home");
  }
  focus.give_back();
  return json{{"window_id", window_id_text(window)}};
}

}  // namespace vc::desktop_agent
