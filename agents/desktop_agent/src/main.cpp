// main.cpp — vc-desktop-agent: the ready line, then one request at a time from stdin while
// the X connection's events (clipboard requests) are served between requests.
#include <clocale>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <unistd.h>

#include <string>

#include "accessibility_worker.h"
#include "agent.h"
#include "terminal_show.h"
#include "vc_agent_common/log_line.h"

namespace vc::agent_common {
constinit const std::string_view kProgramName = "vc-desktop-agent";
}  // namespace vc::agent_common

namespace {

using namespace vc::desktop_agent;
using vc::agent_common::log_line;

int usage() {
  log_line("usage: vc-desktop-agent [--terminal-view FIFO] (requests are JSON lines on "
           "stdin; see docs/desktop-agent.md)");
  return 2;
}

int serve() {
  Agent agent;
  LineReader reader;
  write_line(json{{"ready", true}, {"protocol", kProtocolVersion}, {"agent", kAgentName}});
  char buffer[1 << 16];
  for (;;) {
    agent.x().dispatch_pending();
    agent.x().close_if_dead();
    pollfd fds[2] = {{STDIN_FILENO, POLLIN, 0}, {agent.x().fd(), POLLIN, 0}};
    const int count = fds[1].fd >= 0 ? 2 : 1;
    if (poll(fds, count, -1) < 0) {
      if (errno == EINTR) continue;
      log_line(std::string("poll failed: ") + strerror(errno));
      return 1;
    }
    if (count == 2 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      agent.x().dispatch_pending();
      // A hang-up with nothing queued: Xlib notices the dead socket on its next read.
      if ((fds[1].revents & (POLLHUP | POLLERR)) != 0 && agent.x().connected()) {
        XNoOp(agent.x().display());
        XSync(agent.x().display(), False);
      }
    }
    if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    const ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (got <= 0) return 0;  // the plugin closed the channel
    reader.feed(
        buffer, static_cast<std::size_t>(got),
        [&](std::string& line) {
          if (line.find_first_not_of(" \t") == std::string::npos) return;
          write_line(agent.handle_line(line));
        },
        [] {
          write_line(error_reply(nullptr, ErrorCode::kInvalidArgument,
                                 "The request line is longer than 16 MiB."));
        });
  }
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  setlocale(LC_ALL, "");
  if (argc == 3 && std::string(argv[1]) == "--terminal-view") {
    return terminal_view_main(argv[2]);
  }
  if (argc == 2 && std::string(argv[1]) == "--accessibility-worker") {
    return accessibility_worker_main();
  }
  if (argc == 2 && std::string(argv[1]) == "--version") {
    const std::string line = std::string(kAgentName) + "\n";
    return write(STDOUT_FILENO, line.data(), line.size()) < 0 ? 1 : 0;
  }
  if (argc != 1) return usage();
  return serve();
}
