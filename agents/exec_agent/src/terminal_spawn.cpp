// terminal_spawn.cpp — the pseudo-terminal and the fork for a process started with a pty
// (terminal_spawn.h).
#include "terminal_spawn.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "child_setup.h"
#include "spawn.h"

namespace vc::exec_agent {
namespace {

std::string terminal_failure(const char* what) {
  return std::string("cannot make a terminal (") + what + "): " + std::strerror(errno);
}

// In the forked child; never returns. `terminal` is the secondary side, opened by the parent.
[[noreturn]] void run_in_terminal(const StartRequest& request, int terminal) {
  setsid();
  reset_signal_handling();
  // The new session's leader takes the terminal as its controlling terminal.
  ioctl(terminal, TIOCSCTTY, 0);
  for (int fd = 0; fd <= 2; ++fd) dup2(terminal, fd);
  close_range(3, ~0u, 0);

  if (request.cwd && chdir(request.cwd->c_str()) != 0) {
    write_to_stderr({"vc-exec-agent: cannot enter the working directory '", request.cwd->c_str(),
                     "': ", std::strerror(errno)});
    _exit(126);
  }
  setenv("TERM", "xterm-256color", 1);
  for (const auto& [name, value] : request.env) setenv(name.c_str(), value.c_str(), 1);
  exec_as_a_shell_would(request.argv);
}

}  // namespace

std::variant<TerminalChild, std::string> spawn_in_terminal(const StartRequest& request,
                                                           TerminalSize size) {
  int primary = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (primary < 0) return terminal_failure("posix_openpt");
  char terminal_name[128];
  if (grantpt(primary) != 0 || unlockpt(primary) != 0 ||
      ptsname_r(primary, terminal_name, sizeof terminal_name) != 0) {
    std::string failure = terminal_failure("grantpt, unlockpt, ptsname");
    close(primary);
    return failure;
  }
  winsize window{};
  window.ws_row = static_cast<unsigned short>(size.rows);
  window.ws_col = static_cast<unsigned short>(size.cols);
  ioctl(primary, TIOCSWINSZ, &window);

  // Opened here rather than in the child, so that the secondary side is open from now until
  // the child holds it: a primary whose secondary was never opened, or closed by everyone,
  // reads as a hang-up.
  const int secondary = open(terminal_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  const int input = fcntl(primary, F_DUPFD_CLOEXEC, 3);
  if (secondary < 0 || input < 0) {
    std::string failure = terminal_failure("open, dup");
    close(primary);
    if (secondary >= 0) close(secondary);
    if (input >= 0) close(input);
    return failure;
  }
  const pid_t pid = fork();
  if (pid == 0) run_in_terminal(request, secondary);
  close(secondary);
  if (pid < 0) {
    std::string failure = std::string("fork: ") + std::strerror(errno);
    close(primary);
    close(input);
    return failure;
  }
  // The two descriptors share one open file, and with it O_NONBLOCK.
  fcntl(primary, F_SETFL, fcntl(primary, F_GETFL) | O_NONBLOCK);
  return TerminalChild{pid, primary, input};
}

}  // namespace vc::exec_agent
