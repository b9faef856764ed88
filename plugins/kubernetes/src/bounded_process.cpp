// bounded_process.cpp — posix_spawn with file actions, then one loop that reads both pipes
// with poll() and checks the child with waitpid(WNOHANG) until it ends or the deadline passes.
//
// Why posix_spawn: fork() in a process with threads may only call async-signal-safe functions
// before exec, and posix_spawn does the fd and process-group setup for us in that window.
#include "bounded_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <thread>
#include <utility>

namespace vc::kubernetes {
namespace {

using Clock = std::chrono::steady_clock;
using Ending = BoundedProcessResult::Ending;

// Output still arriving after the program ended comes from a program it left behind; it gets
// this long and no more.
constexpr std::chrono::milliseconds kDrainAfterExit{100};
// How often the child is looked at while its pipes are quiet.
constexpr std::chrono::milliseconds kPollSlice{20};

class Pipe {
 public:
  Pipe() = default;
  ~Pipe() { close_both(); }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;

  bool open() { return ::pipe2(ends_.data(), O_CLOEXEC) == 0; }
  int write_end() const { return ends_[1]; }
  void close_write_end() { close_end(1); }
  // Hands the read end to its new owner, which closes it.
  int release_read_end() { return std::exchange(ends_[0], -1); }
  void close_both() {
    close_end(0);
    close_end(1);
  }

 private:
  void close_end(int which) {
    if (ends_[which] >= 0) ::close(ends_[which]);
    ends_[which] = -1;
  }
  std::array<int, 2> ends_{-1, -1};
};

// What posix_spawn needs, freed on every path out.
class SpawnSetup {
 public:
  SpawnSetup() {
    ::posix_spawn_file_actions_init(&actions_);
    ::posix_spawnattr_init(&attributes_);
  }
  ~SpawnSetup() {
    ::posix_spawn_file_actions_destroy(&actions_);
    ::posix_spawnattr_destroy(&attributes_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  // stdin from /dev/null, stdout and stderr into the pipes; its own process group, so that the
  // deadline kills what it started too; no blocked signals and default dispositions (the
  // server's SIGPIPE handling is not the program's).
  int prepare(int stdout_fd, int stderr_fd) {
    int error =
        ::posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (error == 0) error = ::posix_spawn_file_actions_adddup2(&actions_, stdout_fd, STDOUT_FILENO);
    if (error == 0) error = ::posix_spawn_file_actions_adddup2(&actions_, stderr_fd, STDERR_FILENO);
    sigset_t none;
    sigset_t all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    if (error == 0) error = ::posix_spawnattr_setpgroup(&attributes_, 0);
    if (error == 0) error = ::posix_spawnattr_setsigmask(&attributes_, &none);
    if (error == 0) error = ::posix_spawnattr_setsigdefault(&attributes_, &all);
    if (error == 0) {
      error = ::posix_spawnattr_setflags(
          &attributes_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    }
    return error;
  }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }
  const posix_spawnattr_t* attributes() const { return &attributes_; }

 private:
  posix_spawn_file_actions_t actions_{};
  posix_spawnattr_t attributes_{};
};

std::vector<char*> c_strings(const std::vector<std::string>& strings, const std::string* first) {
  std::vector<char*> pointers;
  if (first != nullptr) pointers.push_back(const_cast<char*>(first->c_str()));
  for (const auto& text : strings) pointers.push_back(const_cast<char*>(text.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// One pipe being read into a bounded string.
struct Capture {
  int fd = -1;
  std::string* text = nullptr;
  std::size_t limit = 0;
  bool overflowed = false;
  bool open() const { return fd >= 0; }
};

// Reads what is there now. Past the limit, bytes are dropped (and `overflowed` set) so that
// the program never blocks on a full pipe.
void read_available(Capture& capture) {
  char buffer[16384];
  const ssize_t count = ::read(capture.fd, buffer, sizeof buffer);
  if (count < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (count <= 0) {
    ::close(capture.fd);
    capture.fd = -1;
    return;
  }
  const std::size_t room = capture.limit - std::min(capture.limit, capture.text->size());
  const std::size_t kept = std::min(room, static_cast<std::size_t>(count));
  capture.text->append(buffer, kept);
  if (kept < static_cast<std::size_t>(count)) capture.overflowed = true;
}

// Waits up to `wait` for output, and reads it.
void pump(std::array<Capture, 2>& captures, std::chrono::milliseconds wait) {
  std::array<pollfd, 2> fds{};
  nfds_t count = 0;
  std::array<Capture*, 2> polled{};
  for (auto& capture : captures) {
    if (!capture.open()) continue;
    fds[count] = pollfd{capture.fd, POLLIN, 0};
    polled[count++] = &capture;
  }
  if (count == 0) {
    std::this_thread::sleep_for(std::min(wait, std::chrono::milliseconds(5)));
    return;
  }
  const int ready = ::poll(fds.data(), count, static_cast<int>(wait.count()));
  if (ready <= 0) return;
  for (nfds_t i = 0; i < count; ++i) {
    if (fds[i].revents != 0) read_available(*polled[i]);
  }
}

void close_captures(std::array<Capture, 2>& captures) {
  for (auto& capture : captures) {
    if (capture.open()) ::close(capture.fd);
    capture.fd = -1;
  }
}

// Kills the program's whole group and reaps the program.
void kill_group(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

void record_exit(int status, BoundedProcessResult& result) {
  if (WIFSIGNALED(status)) {
    result.ending = Ending::kKilledBySignal;
    result.signal = WTERMSIG(status);
  } else {
    result.ending = Ending::kExited;
    result.exit_code = WEXITSTATUS(status);
  }
}

bool is_executable_file(const std::string& path) {
  struct stat status {};
  return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

ConfigExpected<BoundedProcessResult> run_bounded_process(const BoundedProcessRequest& request) {
  Pipe out;
  Pipe err;
  if (!out.open() || !err.open()) {
    return ConfigError{std::string("cannot be started: ") + std::strerror(errno)};
  }
  SpawnSetup setup;
  if (int error = setup.prepare(out.write_end(), err.write_end()); error != 0) {
    return ConfigError{std::string("cannot be started: ") + std::strerror(error)};
  }
  auto argv = c_strings(request.arguments, &request.program);
  auto envp = c_strings(request.environment, nullptr);
  pid_t pid = -1;
  if (int error = ::posix_spawn(&pid, request.program.c_str(), setup.actions(), setup.attributes(),
                                argv.data(), envp.data());
      error != 0) {
    return ConfigError{std::string("cannot be started: ") + std::strerror(error)};
  }
  out.close_write_end();
  err.close_write_end();

  BoundedProcessResult result;
  std::array<Capture, 2> captures{
      Capture{out.release_read_end(), &result.stdout_text, request.max_stdout_bytes, false},
      Capture{err.release_read_end(), &result.stderr_text, request.max_stderr_bytes, false}};
  const auto deadline = Clock::now() + request.timeout;
  std::optional<Clock::time_point> drain_until;
  while (true) {
    if (!drain_until) {
      int status = 0;
      const pid_t waited = ::waitpid(pid, &status, WNOHANG);
      if (waited == pid) {
        record_exit(status, result);
        drain_until = Clock::now() + kDrainAfterExit;
      }
    }
    if (captures[0].overflowed) {
      if (!drain_until) kill_group(pid);
      result.ending = Ending::kStdoutTooLarge;
      break;
    }
    const auto now = Clock::now();
    const bool pipes_closed = !captures[0].open() && !captures[1].open();
    if (drain_until && (pipes_closed || now >= *drain_until)) break;
    if (!drain_until && now >= deadline) {
      kill_group(pid);
      result.ending = Ending::kTimedOut;
      break;
    }
    const auto until = drain_until ? *drain_until : deadline;
    pump(captures, std::clamp(std::chrono::duration_cast<std::chrono::milliseconds>(until - now),
                              std::chrono::milliseconds(0), kPollSlice));
  }
  close_captures(captures);
  return result;
}

std::optional<std::string> find_program(const std::string& command, std::string_view search_path) {
  if (command.empty()) return std::nullopt;
  if (command.find('/') != std::string::npos) {
    if (is_executable_file(command)) return command;
    return std::nullopt;
  }
  while (true) {
    const auto colon = search_path.find(':');
    std::string folder(search_path.substr(0, colon));
    if (folder.empty()) folder = ".";  // an empty PATH entry means the current folder
    std::string candidate = folder + "/" + command;
    if (is_executable_file(candidate)) return candidate;
    if (colon == std::string_view::npos) return std::nullopt;
    search_path.remove_prefix(colon + 1);
  }
}

}  // namespace vc::kubernetes
