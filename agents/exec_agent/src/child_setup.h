// child_setup.h — what every child the program forks does between fork and exec, whether the
// exec agent runs it as a command (spawn.cpp) or the process supervisor keeps it running
// (process_spawn.cpp). Only ever called in a freshly forked child of a single-threaded parent,
// so allocating is safe there.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace vc::exec_agent {

// The parent ignores SIGPIPE and blocks SIGCHLD (it reads SIGCHLD from a signalfd); a child
// must start with the defaults, or `yes | head` would never end and shells would misbehave.
void reset_signal_handling();

// Writes the parts and a newline to fd 2 (already the child's stderr), to explain an exit
// status the program itself never got to produce.
void write_to_stderr(std::initializer_list<const char*> parts);

// execvp(argv); when that fails, writes "<program>: <reason>" to stderr and exits 127 when the
// program is not found, 126 otherwise, as a shell reports it. Never returns.
[[noreturn]] void exec_as_a_shell_would(const std::vector<std::string>& argv);

}  // namespace vc::exec_agent
