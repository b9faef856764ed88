#include "spawn.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "child_setup.h"

namespace vc::exec_agent {
namespace {

struct Pipe {
  int read_end = -1;
  int write_end = -1;
};

void close_pipe(Pipe& pipe) {
  close_fd(pipe.read_end);
  close_fd(pipe.write_end);
}

// Close-on-exec from birth: no other command inherits a pipe of this one (a pipe held open by
// an unrelated process would keep a command's output from ever ending).
bool open_pipe(Pipe& pipe) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  pipe.read_end = fds[0];
  pipe.write_end = fds[1];
  return true;
}

void make_non_blocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// In the forked child; never returns. The agent is single-threaded, so the child may allocate
// (setenv, the argv vector) without the locks-held-by-another-thread hazard of fork.
[[noreturn]] void run_child(const StartRequest& request, const Pipe& input, const Pipe& output,
                            const Pipe& errors) {
  setsid();
  reset_signal_handling();

  // stderr first, so that every later failure can be explained on it.
  dup2(errors.write_end, STDERR_FILENO);
  dup2(output.write_end, STDOUT_FILENO);
  const int stdin_source = input.read_end >= 0 ? input.read_end : open("/dev/null", O_RDONLY);
  if (stdin_source < 0) {
    write_to_stderr({"vc-exec-agent: cannot open /dev/null: ", std::strerror(errno)});
    _exit(126);
  }
  dup2(stdin_source, STDIN_FILENO);
  // Every descriptor of the agent is close-on-exec and inherited ones were closed at start, so
  // this is belt and braces; a kernel without close_range (before 5.9) is fine without it.
  close_range(3, ~0u, 0);

  if (request.cwd && chdir(request.cwd->c_str()) != 0) {
    // Checked before the fork; this is the rare race where it changed in between.
    write_to_stderr({"vc-exec-agent: cannot enter the working directory '", request.cwd->c_str(),
                     "': ", std::strerror(errno)});
    _exit(126);
  }
  for (const auto& [name, value] : request.env) setenv(name.c_str(), value.c_str(), 1);
  exec_as_a_shell_would(request.argv);
}

StartFailure fork_failure(const char* what) {
  return {"fork_failed", std::string(what) + ": " + std::strerror(errno)};
}

}  // namespace

std::optional<StartFailure> check_working_directory(const std::string& cwd) {
  struct stat info {};
  if (stat(cwd.c_str(), &info) != 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR) {
      return StartFailure{"cwd_missing", "'" + cwd + "' does not exist"};
    }
    return StartFailure{"cwd_unusable", "'" + cwd + "': " + std::strerror(error)};
  }
  if (!S_ISDIR(info.st_mode)) {
    return StartFailure{"cwd_unusable", "'" + cwd + "' is not a directory"};
  }
  if (access(cwd.c_str(), X_OK) != 0) {
    return StartFailure{"cwd_unusable", "'" + cwd + "': " + std::strerror(errno)};
  }
  return std::nullopt;
}

std::variant<SpawnedChild, StartFailure> spawn_command(const StartRequest& request) {
  Pipe input, output, errors;
  if ((request.stdin_open && !open_pipe(input)) || !open_pipe(output) || !open_pipe(errors)) {
    StartFailure failure = fork_failure("pipe");
    close_pipe(input);
    close_pipe(output);
    close_pipe(errors);
    return failure;
  }

  const pid_t pid = fork();
  if (pid == 0) run_child(request, input, output, errors);
  if (pid < 0) {
    StartFailure failure = fork_failure("fork");
    close_pipe(input);
    close_pipe(output);
    close_pipe(errors);
    return failure;
  }

  close_fd(input.read_end);
  close_fd(output.write_end);
  close_fd(errors.write_end);
  SpawnedChild child{pid, input.write_end, output.read_end, errors.read_end};
  if (child.stdin_fd >= 0) make_non_blocking(child.stdin_fd);
  make_non_blocking(child.stdout_fd);
  make_non_blocking(child.stderr_fd);
  return child;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace vc::exec_agent
