// command_run.cpp — spawning, supervising and reaping one command.
#include "command_run.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace vc_process_backend {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr size_t kReadChunk = 8192;
// How long to keep reading after the command itself exited, for output its background
// children still write. They keep running afterwards (as on any computer); we just stop
// listening, so a daemon holding the pipe open cannot hang the exec.
constexpr milliseconds kDrainAfterExit{250};
// Retry interval when the host's buffer is full (emit() == VC_E_BACKPRESSURE), and the
// reaping interval when pidfd_open() is unavailable (Linux < 5.3).
constexpr milliseconds kRetryInterval{10};
// How often op->is_cancelled() is looked at, for hosts that flag a cancel without calling
// ops->cancel() (which would wake the loop at once).
constexpr milliseconds kCancelPollInterval{100};
// Caps a timeout so deadline arithmetic cannot overflow (about 31 years).
constexpr int64_t kMaxTimeoutMs = int64_t{1} << 40;

struct ChildFds {
  UniqueFd stdin_parent;  // we write the request's stdin bytes here
  UniqueFd stdin_child;
  UniqueFd out_read, out_write;
  UniqueFd err_read, err_write;
};

int make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return errno;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return 0;
}

// stdin is a socket pair rather than a pipe because send(MSG_NOSIGNAL) reports a reader that
// went away as EPIPE, where write() on a pipe would raise SIGPIPE in the host process (and a
// plugin must not touch signal dispositions to prevent that).
int make_child_fds(bool with_stdin, ChildFds& fds) {
  if (with_stdin) {
    int pair[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return errno;
    fds.stdin_parent.reset(pair[0]);
    fds.stdin_child.reset(pair[1]);
    if (::shutdown(pair[1], SHUT_WR) != 0) return errno;  // the command only reads
  }
  if (int err = make_pipe(fds.out_read, fds.out_write)) return err;
  if (int err = make_pipe(fds.err_read, fds.err_write)) return err;
  for (int fd : {fds.stdin_parent.get(), fds.out_read.get(), fds.err_read.get()}) {
    if (fd >= 0 && ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) return errno;
  }
  return 0;
}

// posix_spawn instead of fork(): no copy of a large, multi-threaded host, and no code runs in
// the child between fork and exec. Returns 0 or an errno value (the child never existed).
int spawn_child(const CommandSpec& spec, ChildFds& fds, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (int err = posix_spawn_file_actions_init(&actions)) return err;
  if (int err = posix_spawnattr_init(&attr)) {
    posix_spawn_file_actions_destroy(&actions);
    return err;
  }

  int err = 0;
  if (fds.stdin_child) {
    err = posix_spawn_file_actions_adddup2(&actions, fds.stdin_child.get(), STDIN_FILENO);
  } else {
    err = posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  if (!err) err = posix_spawn_file_actions_adddup2(&actions, fds.out_write.get(), STDOUT_FILENO);
  if (!err) err = posix_spawn_file_actions_adddup2(&actions, fds.err_write.get(), STDERR_FILENO);
  // The child changes directory, never the host (chdir is process-wide).
  if (!err) err = posix_spawn_file_actions_addchdir_np(&actions, spec.working_directory.c_str());

  // Own process group (so the whole tree can be killed), an empty signal mask and default
  // dispositions: the host may ignore SIGPIPE, and ignored signals survive exec.
  sigset_t empty_mask;
  sigset_t all_signals;
  sigemptyset(&empty_mask);
  sigfillset(&all_signals);
  sigdelset(&all_signals, SIGKILL);
  sigdelset(&all_signals, SIGSTOP);
  if (!err) err = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                                      POSIX_SPAWN_SETSIGDEF);
  if (!err) err = posix_spawnattr_setpgroup(&attr, 0);
  if (!err) err = posix_spawnattr_setsigmask(&attr, &empty_mask);
  if (!err) err = posix_spawnattr_setsigdefault(&attr, &all_signals);

  if (!err) {
    std::vector<char*> argv;
    argv.reserve(spec.argv.size() + 1);
    for (const auto& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    err = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), environ);
  }
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  return err;
}

// A descriptor that becomes readable when `pid` exits, so the poll loop needs no timer and no
// SIGCHLD handler. Invalid when the kernel is too old; the caller then polls waitpid().
UniqueFd open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  return UniqueFd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));  // always CLOEXEC
#else
  (void)pid;
  return UniqueFd();
#endif
}

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 128;
}

int poll_timeout(Clock::time_point now, Clock::time_point until) {
  if (until <= now) return 0;
  auto ms = std::chrono::duration_cast<milliseconds>(until - now).count() + 1;
  return static_cast<int>(std::min<int64_t>(ms, INT_MAX));
}

// The supervision loop of one spawned command: feeds stdin, forwards output, watches the
// deadline, the output limit and cancellation, and reaps the child.
class Supervisor {
 public:
  Supervisor(const CommandSpec& spec, ChildFds& fds, pid_t pid, int wake_fd,
             const std::atomic<bool>& interrupted, const CommandRun::Emit& emit,
             const CommandRun::IsCancelled& is_cancelled)
      : spec_(spec), fds_(fds), pid_(pid), wake_fd_(wake_fd), interrupted_(interrupted),
        emit_(emit), is_cancelled_(is_cancelled), pidfd_(open_pidfd(pid)) {}

  // Returns how the command ended; exit_code is filled in by the caller after reaping.
  CommandEnd supervise(Clock::time_point deadline) {
    for (;;) {
      auto now = Clock::now();
      if (interrupted_.load() || is_cancelled_()) return CommandEnd::cancelled;
      if (now >= deadline) return CommandEnd::timed_out;
      if (reaped_ && (all_output_closed() || now >= reaped_at_ + kDrainAfterExit)) {
        return CommandEnd::exited;
      }
      if (auto end = poll_once(now, deadline)) return *end;
    }
  }

  // Kills the whole process group and reaps the command if that did not happen yet.
  void kill_and_reap() {
    ::kill(-pid_, SIGKILL);
    while (!reaped_) {
      if (::waitpid(pid_, &wait_status_, 0) == pid_ || errno != EINTR) reaped_ = true;
    }
  }

  int wait_status() const { return wait_status_; }

 private:
  enum Slot { kWake, kExit, kStdout, kStderr, kStdin, kSlots };

  bool all_output_closed() const { return !fds_.out_read && !fds_.err_read; }
  bool stdin_pending() const {
    return fds_.stdin_parent && stdin_written_ < spec_.stdin_bytes.size();
  }

  std::optional<CommandEnd> poll_once(Clock::time_point now, Clock::time_point deadline) {
    pollfd slots[kSlots];
    auto watch = [&](Slot slot, int fd, short events) { slots[slot] = {fd, events, 0}; };
    watch(kWake, wake_fd_, POLLIN);
    watch(kExit, reaped_ ? -1 : pidfd_.get(), POLLIN);
    bool reading = backlog_.empty();  // hold reads while the host cannot take more
    watch(kStdout, reading ? fds_.out_read.get() : -1, POLLIN);
    watch(kStderr, reading ? fds_.err_read.get() : -1, POLLIN);
    watch(kStdin, stdin_pending() ? fds_.stdin_parent.get() : -1, POLLOUT);

    Clock::time_point wake_at = std::min(deadline, now + kCancelPollInterval);
    if (!backlog_.empty() || (!reaped_ && !pidfd_)) wake_at = std::min(wake_at, now + kRetryInterval);
    if (reaped_) wake_at = std::min(wake_at, reaped_at_ + kDrainAfterExit);

    int ready = ::poll(slots, kSlots, poll_timeout(now, wake_at));
    if (ready < 0 && errno != EINTR) return CommandEnd::cancelled;  // cannot supervise: stop it

    if (ready > 0 && slots[kWake].revents != 0) return CommandEnd::cancelled;
    if (!backlog_.empty() && !retry_backlog()) return CommandEnd::output_limit_exceeded;
    if (ready > 0 && slots[kStdin].revents != 0) feed_stdin();
    for (Slot slot : {kStdout, kStderr}) {
      if (ready > 0 && slots[slot].revents != 0 && !forward_output(slot)) {
        return CommandEnd::output_limit_exceeded;
      }
    }
    if (!reaped_ && (!pidfd_ || (ready > 0 && slots[kExit].revents != 0))) try_reap();
    return std::nullopt;
  }

  void feed_stdin() {
    const std::string& bytes = spec_.stdin_bytes;
    ssize_t n = ::send(fds_.stdin_parent.get(), bytes.data() + stdin_written_,
                       std::min<size_t>(bytes.size() - stdin_written_, 65536),
                       MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) stdin_written_ += static_cast<size_t>(n);
    bool failed = n < 0 && errno != EAGAIN && errno != EINTR;  // EPIPE: it stopped reading
    // Closing our end is what makes the command see EOF once it has read everything.
    if (failed || stdin_written_ == bytes.size()) fds_.stdin_parent.reset();
  }

  // Returns false when the output limit is reached and the command must end.
  bool forward_output(Slot slot) {
    UniqueFd& fd = slot == kStdout ? fds_.out_read : fds_.err_read;
    char buffer[kReadChunk];
    ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
      fd.reset();  // EOF: every writer (the command and its children) closed it
      return true;
    }
    if (n < 0) return true;

    size_t take = static_cast<size_t>(n);
    bool over_limit = false;
    if (spec_.output_limit > 0 && total_output_ + take > spec_.output_limit) {
      take = static_cast<size_t>(spec_.output_limit - total_output_);
      over_limit = true;
    }
    total_output_ += take;
    vc_stream stream = slot == kStdout ? VC_STREAM_STDOUT : VC_STREAM_STDERR;
    if (take > 0) {
      vc_status status = emit_(stream, buffer, take);
      if (status == VC_NOTE_TRUNCATED) return false;
      if (status == VC_E_BACKPRESSURE) {
        backlog_.assign(buffer, take);
        backlog_stream_ = stream;
      }
    }
    return !over_limit;
  }

  // Offers the held-back chunk again; false when the host says the output limit is reached.
  bool retry_backlog() {
    vc_status status = emit_(backlog_stream_, backlog_.data(), backlog_.size());
    if (status == VC_NOTE_TRUNCATED) return false;
    if (status != VC_E_BACKPRESSURE) backlog_.clear();
    return true;
  }

  // Reaps only our own child, never waitpid(-1): other children belong to the host.
  void try_reap() {
    pid_t done = ::waitpid(pid_, &wait_status_, WNOHANG);
    if (done == pid_ || (done < 0 && errno == ECHILD)) {
      reaped_ = true;
      reaped_at_ = Clock::now();
    }
  }

  const CommandSpec& spec_;
  ChildFds& fds_;
  pid_t pid_;
  int wake_fd_;
  const std::atomic<bool>& interrupted_;
  const CommandRun::Emit& emit_;
  const CommandRun::IsCancelled& is_cancelled_;
  UniqueFd pidfd_;

  size_t stdin_written_ = 0;
  uint64_t total_output_ = 0;
  std::string backlog_;
  vc_stream backlog_stream_ = VC_STREAM_STDOUT;
  bool reaped_ = false;
  Clock::time_point reaped_at_{};
  int wait_status_ = 0;
};

}  // namespace

CommandRun::CommandRun() {
  if (int err = make_pipe(wake_read_, wake_write_)) {
    throw std::system_error(err, std::generic_category(), "pipe2");
  }
  ::fcntl(wake_write_.get(), F_SETFL, O_NONBLOCK);
}

void CommandRun::interrupt() {
  interrupted_.store(true);
  char byte = 1;
  // A full pipe already holds a wake-up; nothing else can go wrong that we could act on.
  [[maybe_unused]] ssize_t n = ::write(wake_write_.get(), &byte, 1);
}

CommandReport CommandRun::run(const CommandSpec& spec, const Emit& emit,
                              const IsCancelled& is_cancelled) {
  CommandReport report;
  auto started = Clock::now();
  auto elapsed_ms = [&] {
    return std::chrono::duration_cast<milliseconds>(Clock::now() - started).count();
  };
  if (interrupted_.load() || is_cancelled()) {
    report.end = CommandEnd::cancelled;
    return report;
  }

  ChildFds fds;
  pid_t pid = -1;
  int err = make_child_fds(!spec.stdin_bytes.empty(), fds);
  if (!err) err = spawn_child(spec, fds, pid);
  // The child has its copies now; ours would keep the output pipes from ever reaching EOF.
  fds.stdin_child.reset();
  fds.out_write.reset();
  fds.err_write.reset();
  if (err) {
    report.end = CommandEnd::spawn_failed;
    report.spawn_errno = err;
    report.exit_code = err == ENOENT ? 127 : 126;  // what a shell reports for the same failure
    report.duration_ms = elapsed_ms();
    return report;
  }

  Supervisor supervisor(spec, fds, pid, wake_read_.get(), interrupted_, emit, is_cancelled);
  auto deadline = started + milliseconds(std::min(spec.timeout_ms, kMaxTimeoutMs));
  report.end = supervisor.supervise(deadline);
  if (report.end != CommandEnd::exited) supervisor.kill_and_reap();
  report.exit_code = exit_code_of(supervisor.wait_status());
  report.duration_ms = elapsed_ms();
  return report;
}

}  // namespace vc_process_backend
