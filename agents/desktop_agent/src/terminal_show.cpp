// terminal_show.cpp — FIFO writer on the agent's side, window management, and the viewer.
#include "terminal_show.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>

#include "vc_agent_common/clock.h"
#include "vc_agent_common/log_line.h"
#include "session_env.h"
#include "detached_spawn.h"
#include "focus_guard.h"
#include "x_properties.h"

namespace vc::desktop_agent {

using agent_common::log_line;
using agent_common::monotonic_ms;

namespace {

constexpr const char* kTitle = "MCP Terminal";
constexpr int kOpenTimeoutMs = 10000;
constexpr int kNewWindowFocusMs = 1000;
// A terminal that stops reading (a stuck screen) must not stall the agent for long.
constexpr int kWriteTimeoutMs = 2000;
constexpr const char* kGreen = "\033[1;32m";
constexpr const char* kReset = "\033[0m";

}  // namespace

TerminalShow::TerminalShow(XConnection& x, Windows& windows) : x_(x), windows_(windows) {
  folder_ = "/tmp/vc-desktop-agent-" + std::to_string(getuid());
  fifo_ = folder_ + "/terminal.fifo";
}

TerminalShow::~TerminalShow() {
  if (writer_ >= 0) close(writer_);
}

Window TerminalShow::find_window() {
  Window found = None;
  for (Window window : windows_.client_list()) {
    auto title = read_title(x_, window);
    if (title && *title == kTitle) found = window;
  }
  return found;
}

bool TerminalShow::open_writer() {
  if (writer_ >= 0) return true;
  // Succeeds only while a reader has the FIFO open (ENXIO otherwise).
  writer_ = open(fifo_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  return writer_ >= 0;
}

Window TerminalShow::ensure_terminal() {
  x_.display();
  Window window = find_window();
  if (window != None && open_writer()) return window;
  if (writer_ >= 0) {
    close(writer_);
    writer_ = -1;
  }
  mkdir(folder_.c_str(), 0700);
  struct stat info {};
  if (stat(fifo_.c_str(), &info) != 0 || !S_ISFIFO(info.st_mode)) {
    unlink(fifo_.c_str());
    if (mkfifo(fifo_.c_str(), 0600) != 0) {
      throw_failed("The terminal's FIFO " + fifo_ + " could not be made.");
    }
  }
  const Environment environment = launch_environment(x_.display_name());
  const std::string terminal = find_executable("xfce4-terminal", environment);
  if (terminal.empty()) throw_failed("xfce4-terminal is not installed on this computer.");
  const std::vector<std::string> argv = {terminal,
                                         "--disable-server",
                                         std::string("--title=") + kTitle,
                                         "--working-directory=/workspace",
                                         "-x",
                                         self_executable(),
                                         "--terminal-view",
                                         fifo_};
  mkdir("/tmp/vc-logs", 0755);
  spawn_detached(argv, environment, "/workspace", "/tmp/vc-logs/terminal.log");
  windows_.wait_for(x_.root(), kOpenTimeoutMs, [&] {
    window = find_window();
    return window != None && open_writer();
  });
  if (window == None || writer_ < 0) {
    throw_failed("The MCP Terminal window did not open within 10 seconds.");
  }
  mark_show_window(x_, window, "terminal");
  // The window manager gives a new window the focus: waited for here, so that the focus the
  // show gives back afterwards is not taken again.
  windows_.wait_for(window, kNewWindowFocusMs, [&] { return windows_.active_window() == window; });
  at_line_start_ = true;
  return window;
}

bool TerminalShow::write_all(const std::string& text) {
  std::size_t done = 0;
  const std::int64_t deadline = monotonic_ms() + kWriteTimeoutMs;
  while (done < text.size()) {
    const ssize_t put = write(writer_, text.data() + done, text.size() - done);
    if (put > 0) {
      done += static_cast<std::size_t>(put);
      continue;
    }
    if (put < 0 && errno == EINTR) continue;
    if (put < 0 && errno == EAGAIN) {
      const std::int64_t left = deadline - monotonic_ms();
      if (left <= 0) {
        log_line("the MCP Terminal did not take its output within 2 s; output dropped");
        return true;
      }
      pollfd fd{writer_, POLLOUT, 0};
      poll(&fd, 1, static_cast<int>(left));
      continue;
    }
    return false;  // EPIPE: the window was closed
  }
  return true;
}

void TerminalShow::show(const std::string& text) {
  if (text.empty()) return;
  if (writer_ < 0) ensure_terminal();
  if (write_all(text)) {
    at_line_start_ = text.back() == '\n';
    return;
  }
  close(writer_);
  writer_ = -1;
  // Closed by a person: a new window, with the running command's header again.
  ensure_terminal();
  if (!header_.empty()) write_all(header_);
  if (!write_all(text)) throw_failed("The MCP Terminal closed while the agent wrote to it.");
  at_line_start_ = text.back() == '\n';
}

json TerminalShow::action(const Request& request) {
  const std::string phase = request.choice("phase", {"start", "output", "end"});
  // Sessions only pair the phases for the plugin; the display is one stream either way.
  request.string("session");
  if (phase == "start") {
    const std::string& prompt = request.string("prompt");
    const std::string& command = request.string("command");
    // Show, never steal (focus_guard.h): the terminal comes to the front only when the agent
    // is not working in a window.
    FocusGuard focus(x_, windows_);
    const Window window = ensure_terminal();
    std::string text = at_line_start_ ? "" : "\n";
    header_ = std::string(kGreen) + prompt + kReset + command + "\n";
    show(text + header_);
    const Window shown = find_window();
    if (focus.working() != None) {
      focus.give_back();
    } else if (shown != None && windows_.active_window() != shown) {
      windows_.activate(shown);
    }
    return json{{"window_id", window_id_text(shown != None ? shown : window)}};
  }
  if (phase == "output") {
    const std::string& data = request.string("data");
    // A terminal a person closed opens again here, and must not keep the focus either.
    FocusGuard focus(x_, windows_);
    show(data);
    focus.give_back();
    return json::object();
  }
  const std::int64_t exit_code = request.integer("exit_code", INT32_MIN, INT32_MAX);
  std::string text = at_line_start_ ? "" : "\n";
  text += "[exit " + std::to_string(exit_code) + "]\n";
  show(text);
  header_.clear();
  return json::object();
}

int terminal_view_main(const std::string& fifo) {
  // Read and write ends both: the FIFO never reports end-of-file between two writers.
  const int reader = open(fifo.c_str(), O_RDWR | O_CLOEXEC);
  if (reader < 0) {
    log_line("cannot open " + fifo);
    return 1;
  }
  const std::string banner = std::string("\033[1;36m") + kTitle + "\033[0m\n";
  if (write(STDOUT_FILENO, banner.data(), banner.size()) < 0) return 1;
  char buffer[65536];
  for (;;) {
    const ssize_t got = read(reader, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return 0;
    ssize_t done = 0;
    while (done < got) {
      const ssize_t put = write(STDOUT_FILENO, buffer + done, static_cast<std::size_t>(got - done));
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return 0;  // the terminal closed
      done += put;
    }
  }
}

}  // namespace vc::desktop_agent
