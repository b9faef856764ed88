// child_process.cpp — see child_process.h.
#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace vc::test {
namespace {

using Clock = std::chrono::steady_clock;

std::runtime_error system_error(const std::string& what, int error) {
  return std::runtime_error(what + ": " + std::strerror(error));
}

// Milliseconds left until `deadline`, for poll(); 0 once it has passed.
int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

// A write to a child that has gone away must fail with EPIPE, not end the test process.
void ignore_sigpipe_once() {
  static std::once_flag once;
  std::call_once(once, [] { ::signal(SIGPIPE, SIG_IGN); });
}

std::vector<std::string> build_environment(const SpawnOptions& options) {
  std::map<std::string, std::string> merged;
  if (options.inherit_environment) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      const std::string text = *entry;
      const auto equals = text.find('=');
      if (equals == std::string::npos) continue;
      merged[text.substr(0, equals)] = text.substr(equals + 1);
    }
  }
  for (const auto& [name, value] : options.environment) {
    if (value) merged[name] = *value;
    else merged.erase(name);
  }
  std::vector<std::string> result;
  result.reserve(merged.size());
  for (const auto& [name, value] : merged) result.push_back(name + "=" + value);
  return result;
}

std::vector<char*> pointers_to(std::vector<std::string>& texts) {
  std::vector<char*> pointers;
  pointers.reserve(texts.size() + 1);
  for (auto& text : texts) pointers.push_back(text.data());
  pointers.push_back(nullptr);
  return pointers;
}

ExitStatus decode(int raw) {
  ExitStatus status;
  if (WIFEXITED(raw)) {
    status.exited = true;
    status.code = WEXITSTATUS(raw);
  } else if (WIFSIGNALED(raw)) {
    status.signal = WTERMSIG(raw);
  }
  return status;
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attributes{};
  SpawnSetup() {
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attributes);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

}  // namespace

std::string ExitStatus::describe() const {
  std::ostringstream text;
  if (exited) {
    text << "exit code " << code;
  } else if (signal != 0) {
    text << "killed by signal " << signal << " (" << ::strsignal(signal) << ")";
  } else {
    text << "unknown status";
  }
  return text.str();
}

ChildProcess::ChildProcess(const SpawnOptions& options) {
  if (options.argv.empty()) throw std::invalid_argument("ChildProcess: argv is empty");
  ignore_sigpipe_once();

  int stdin_pipe[2] = {-1, -1};
  int stdout_pipe[2] = {-1, -1};
  int stderr_fd = -1;
  auto close_all = [&] {
    for (int* fd : {&stdin_pipe[0], &stdin_pipe[1], &stdout_pipe[0], &stdout_pipe[1], &stderr_fd}) {
      close_fd(*fd);
    }
  };
  if (::pipe2(stdin_pipe, O_CLOEXEC) != 0 || ::pipe2(stdout_pipe, O_CLOEXEC) != 0) {
    const int error = errno;
    close_all();
    throw system_error("pipe2", error);
  }

  if (options.stderr_path.empty()) {
    std::string pattern = (std::filesystem::temp_directory_path() / "vc-test-stderr-XXXXXX").string();
    stderr_fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    stderr_path_ = pattern;
    remove_stderr_file_ = true;
  } else {
    stderr_path_ = options.stderr_path;
    stderr_fd = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  }
  if (stderr_fd < 0) {
    const int error = errno;
    close_all();
    throw system_error("stderr file " + stderr_path_.string(), error);
  }

  SpawnSetup setup;
  // dup2 onto 0/1/2 clears close-on-exec for those three only.
  posix_spawn_file_actions_adddup2(&setup.actions, stdin_pipe[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, stdout_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&setup.actions, stderr_fd, STDERR_FILENO);

  // The child starts with default signal handling and nothing blocked, whatever the test
  // process (which ignores SIGPIPE) has set up.
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigset_t nothing_blocked;
  sigemptyset(&nothing_blocked);
  short flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK;
  posix_spawnattr_setsigdefault(&setup.attributes, &defaults);
  posix_spawnattr_setsigmask(&setup.attributes, &nothing_blocked);
  if (options.own_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&setup.attributes, 0);
  }
  posix_spawnattr_setflags(&setup.attributes, flags);

  std::vector<std::string> argv_texts = options.argv;
  std::vector<char*> argv = pointers_to(argv_texts);
  std::vector<std::string> env_texts = build_environment(options);
  std::vector<char*> envp = pointers_to(env_texts);

  const auto spawn = options.search_path ? ::posix_spawnp : ::posix_spawn;
  const int error = spawn(&pid_, argv[0], &setup.actions, &setup.attributes, argv.data(),
                          envp.data());
  if (error != 0) {
    close_all();
    if (remove_stderr_file_) std::filesystem::remove(stderr_path_);
    pid_ = -1;
    throw system_error("posix_spawn " + options.argv[0], error);
  }
  own_group_ = options.own_process_group;

  close_fd(stdin_pipe[0]);
  close_fd(stdout_pipe[1]);
  close_fd(stderr_fd);
  stdin_fd_ = stdin_pipe[1];
  stdout_fd_ = stdout_pipe[0];
  ::fcntl(stdin_fd_, F_SETFL, ::fcntl(stdin_fd_, F_GETFL) | O_NONBLOCK);
  ::fcntl(stdout_fd_, F_SETFL, ::fcntl(stdout_fd_, F_GETFL) | O_NONBLOCK);
}

ChildProcess::~ChildProcess() {
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  if (pid_ > 0 && !status_) {
    if (own_group_) ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int raw = 0;
    while (::waitpid(pid_, &raw, 0) < 0 && errno == EINTR) {
    }
  }
  if (remove_stderr_file_) {
    std::error_code ignored;
    std::filesystem::remove(stderr_path_, ignored);
  }
}

bool ChildProcess::write_stdin(std::string_view data, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!data.empty()) {
    if (stdin_fd_ < 0) return false;
    const ssize_t written = ::write(stdin_fd_, data.data(), data.size());
    if (written > 0) {
      data.remove_prefix(static_cast<size_t>(written));
      continue;
    }
    if (written < 0 && errno == EINTR) continue;
    if (written < 0 && errno != EAGAIN) return false;  // EPIPE: the child closed its stdin
    pollfd ready{stdin_fd_, POLLOUT, 0};
    const int wait_ms = remaining_ms(deadline);
    if (wait_ms == 0) return false;
    if (::poll(&ready, 1, wait_ms) < 0 && errno != EINTR) return false;
  }
  return true;
}

void ChildProcess::close_stdin() { close_fd(stdin_fd_); }

bool ChildProcess::fill_buffer(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  char chunk[65536];
  for (;;) {
    const ssize_t got = ::read(stdout_fd_, chunk, sizeof chunk);
    if (got > 0) {
      buffer_.append(chunk, static_cast<size_t>(got));
      return true;
    }
    if (got == 0) {
      stdout_eof_ = true;
      return true;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN) {
      stdout_eof_ = true;
      return true;
    }
    pollfd ready{stdout_fd_, POLLIN, 0};
    const int wait_ms = remaining_ms(deadline);
    if (wait_ms == 0) return false;
    if (::poll(&ready, 1, wait_ms) < 0 && errno != EINTR) {
      stdout_eof_ = true;
      return true;
    }
  }
}

ReadResult ChildProcess::read_line(std::string& line, std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    const auto newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      line.assign(buffer_, 0, newline);
      buffer_.erase(0, newline + 1);
      return ReadResult::line;
    }
    if (stdout_eof_) {
      if (buffer_.empty()) return ReadResult::eof;
      line = std::move(buffer_);
      buffer_.clear();
      return ReadResult::line;
    }
    if (!fill_buffer(std::chrono::milliseconds(remaining_ms(deadline)))) return ReadResult::timeout;
  }
}

std::optional<std::string> ChildProcess::read_to_eof(std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  while (!stdout_eof_) {
    if (!fill_buffer(std::chrono::milliseconds(remaining_ms(deadline)))) return std::nullopt;
  }
  std::string all = std::move(buffer_);
  buffer_.clear();
  return all;
}

std::optional<ExitStatus> ChildProcess::wait(std::chrono::milliseconds timeout) {
  if (status_) return status_;
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int raw = 0;
    const pid_t done = ::waitpid(pid_, &raw, WNOHANG);
    if (done == pid_) {
      status_ = decode(raw);
      return status_;
    }
    if (done < 0 && errno != EINTR) {
      status_ = ExitStatus{};  // not our child any more; nothing left to wait for
      return status_;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

bool ChildProcess::running() { return !wait(std::chrono::milliseconds(0)).has_value(); }

void ChildProcess::kill(int signal) {
  if (!status_) ::kill(pid_, signal);
}

void ChildProcess::kill_group(int signal) {
  if (!status_ && own_group_) ::kill(-pid_, signal);
}

ExitStatus ChildProcess::stop(std::chrono::milliseconds grace) {
  close_stdin();
  if (auto status = wait(grace)) return *status;
  if (own_group_) kill_group(SIGKILL);
  kill(SIGKILL);
  if (auto status = wait(std::chrono::seconds(30))) return *status;
  throw std::runtime_error("child " + std::to_string(pid_) + " survived SIGKILL for 30 s");
}

std::string ChildProcess::stderr_text() const {
  std::ifstream file(stderr_path_, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace vc::test
