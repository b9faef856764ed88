// spawn.h — starting one command: the working-directory check, the pipes, fork and exec.
//
// The child gets a session and process group of its own (setsid), so that a timeout or cancel
// can end everything it started with one kill(-pgid), and default signal handling, so that it
// behaves as it would under a shell whatever the agent itself ignores or blocks.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <variant>

#include "start_request.h"

namespace vc::exec_agent {

// Why a command could not start: the `exit` frame's error_code and error.
struct StartFailure {
  std::string error_code;  // cwd_missing, cwd_unusable, fork_failed
  std::string error;
};

// The agent's ends of a started command's pipes: non-blocking, close-on-exec.
struct SpawnedChild {
  pid_t pid = -1;     // also the command's process-group and session id
  int stdin_fd = -1;  // -1 when the command reads /dev/null
  int stdout_fd = -1;
  int stderr_fd = -1;
};

// Checked in the agent, before forking, so that the plugin gets a precise start_failed rather
// than an exit status: missing (ENOENT, ENOTDIR) is cwd_missing; anything else that keeps a
// process from entering it (not a folder, no search permission) is cwd_unusable.
std::optional<StartFailure> check_working_directory(const std::string& cwd);

std::variant<SpawnedChild, StartFailure> spawn_command(const StartRequest& request);

// Closes `fd` when it is open and marks it closed (-1), so a second call does nothing.
void close_fd(int& fd);

}  // namespace vc::exec_agent
