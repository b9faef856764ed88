// detached_spawn.h — starting programs detached from the agent: their own session, stdin /dev/null,
// output to a log, re-parented to init so the agent never waits for them.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "session_env.h"

namespace vc::desktop_agent {

// Starts argv[0] (an absolute path) and returns its pid once it has exec'd; `failed` with
// the reason when the exec did not happen.
pid_t spawn_detached(const std::vector<std::string>& argv, const Environment& environment,
                     const std::string& directory, const std::string& log_path);

// argv[0] as given when it holds a '/', else searched in PATH; empty when not found.
std::string find_executable(const std::string& name, const Environment& environment);

// The agent's own program file, to start it again in another role (the accessibility worker,
// the terminal's viewer); the installed path when /proc cannot tell.
std::string self_executable();

// Marks every descriptor above stderr close-on-exec (for children started by fork/exec).
void close_on_exec_from(int first_fd);

}  // namespace vc::desktop_agent
