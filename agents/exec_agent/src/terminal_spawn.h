// terminal_spawn.h — starting a supervised process in a pseudo-terminal of its own.
//
// The process is the leader of a new session whose controlling terminal is the pty's
// secondary side (stdin, stdout and stderr all on it, TERM=xterm-256color, the size asked
// for); the supervisor keeps the primary side, which carries everything the process prints
// (one stream) and everything typed into it. A process on pipes is started by spawn_command
// (spawn.h), as the exec agent starts its commands. Single-threaded parent.
#pragma once

#include <sys/types.h>

#include <string>
#include <variant>

#include "start_request.h"

namespace vc::exec_agent {

struct TerminalChild {
  pid_t pid = -1;      // also its session and process-group id
  int output_fd = -1;  // the primary side, non-blocking, close-on-exec: what it prints
  int input_fd = -1;   // the same terminal (a duplicate), polled for writing separately
};

struct TerminalSize {
  int rows = 24;
  int cols = 80;
};

// `request.stdin_open` is ignored: a terminal is always the input. The error text when the
// terminal or the process cannot be made.
std::variant<TerminalChild, std::string> spawn_in_terminal(const StartRequest& request,
                                                           TerminalSize size);

}  // namespace vc::exec_agent
