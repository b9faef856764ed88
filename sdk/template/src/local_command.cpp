// local_command.cpp — posix_spawn, a poll() loop over stdout and stderr, and the kill.
#include "local_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <system_error>
#include <utility>

extern char** environ;

namespace example_backend {
namespace {

using Clock = std::chrono::steady_clock;

struct Fd {  // closes its descriptor exactly once
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(std::exchange(fd, -1));
  }
};

// The command's stdin as an in-memory file: no writer thread, no SIGPIPE when it is not read.
int open_stdin(std::string_view bytes) {
  if (bytes.empty()) return ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int fd = ::memfd_create("vc-template-stdin", MFD_CLOEXEC);
  if (fd >= 0 && ::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    ::close(std::exchange(fd, -1));  // a memfd takes everything at once, or nothing
  }
  if (fd >= 0) ::lseek(fd, 0, SEEK_SET);
  return fd;
}

// 0 or an errno value. Its own process group (so the whole tree can be killed), an empty signal
// mask and default dispositions: the host may ignore SIGPIPE, and ignored signals survive exec.
int spawn(const CommandRun& run, const int (&fds)[3], pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  for (int target = 0; target < 3; ++target) {
    posix_spawn_file_actions_adddup2(&actions, fds[target], target);
  }
  posix_spawn_file_actions_addchdir_np(&actions, run.working_directory.c_str());  // never chdir()
  sigset_t no_signals, defaults;
  sigemptyset(&no_signals);
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &no_signals);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  std::vector<char*> argv;
  for (const auto& arg : run.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  int error = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return error;
}

}  // namespace

CommandEnd run_local_command(const CommandRun& run, const EmitOutput& emit,
                             vc::sdk::CancelScope& scope) {
  CommandEnd end;
  const auto started = Clock::now();
  Fd in{open_stdin(run.stdin_bytes)}, out[2], err[2];  // [0] read end, [1] write end
  int error = in.fd < 0 ? errno : 0;
  for (Fd* pipe : {out, err}) {
    int ends[2];
    if (error == 0 && ::pipe2(ends, O_CLOEXEC) != 0) error = errno;
    if (error == 0) pipe[0].fd = ends[0], pipe[1].fd = ends[1];
  }
  pid_t pid = -1;
  if (error == 0) error = spawn(run, {in.fd, out[1].fd, err[1].fd}, pid);
  in.reset(), out[1].reset(), err[1].reset();  // the child has its copies; ours would hide EOF
  auto elapsed_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started).count();
  };
  if (error != 0) {  // reported as a shell would: on stderr, with exit code 127 or 126
    emit(VC_STREAM_STDERR, "cannot run '" + run.argv[0] +
                                        "': " + std::generic_category().message(error) + "\n");
    end.exit_code = error == ENOENT ? 127 : 126;
    end.duration_ms = elapsed_ms();
    return end;
  }
  scope.set_canceller([pid] { ::kill(-pid, SIGKILL); });

  const auto deadline =
      started + std::chrono::milliseconds(std::min<int64_t>(run.timeout_ms, int64_t{1} << 40));
  bool exited = false, kill_group = false;
  while (!kill_group && !end.cancelled) {
    siginfo_t info{};  // WNOWAIT: the pid, and with it the group id, stays ours until waitpid()
    exited = exited || (::waitid(P_PID, static_cast<id_t>(pid), &info,
                                 WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid);
    if (Clock::now() >= deadline) end.outcome = "timed_out", kill_group = true;
    end.cancelled = scope.cancelled();
    pollfd fds[2] = {{out[0].fd, POLLIN, 0}, {err[0].fd, POLLIN, 0}};
    // Once the command exited, take what is there and stop: a daemon it started may hold the
    // pipes open for ever.
    int ready = kill_group || end.cancelled ? 0 : ::poll(fds, 2, exited ? 0 : 50);
    if (exited && ready <= 0) break;
    for (int i = 0; i < 2 && ready > 0 && !kill_group; ++i) {
      char buffer[8192];
      ssize_t n = fds[i].revents != 0 ? ::read(fds[i].fd, buffer, sizeof buffer) : -1;
      if (n == 0 || (n < 0 && fds[i].revents != 0 && errno != EINTR)) {
        (i == 0 ? out : err)[0].reset();  // EOF: the command and its children closed it
      }
      if (n <= 0) continue;
      vc_stream stream = i == 0 ? VC_STREAM_STDOUT : VC_STREAM_STDERR;
      kill_group = emit(stream, {buffer, static_cast<size_t>(n)}) == VC_NOTE_TRUNCATED;
      if (kill_group) end.outcome = "output_limit_exceeded";
    }
  }
  scope.clear();
  if (kill_group || end.cancelled) ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                    : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  end.duration_ms = elapsed_ms();
  return end;
}

}  // namespace example_backend
