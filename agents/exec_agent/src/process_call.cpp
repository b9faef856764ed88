// process_call.cpp — the client side of the supervisor's socket (process_call.h). Blocking I/O
// throughout: it is a short-lived command with one thing to do.
#include "process_call.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "socket_messages.h"
#include "state_dir.h"
#include "vc_agent_common/clock.h"

namespace vc::exec_agent {
namespace {

using agent_common::Millis;
using agent_common::monotonic_ms;

// How long a supervisor that was just started gets to answer on its socket.
constexpr Millis kSupervisorStartWaitMs = 3000;
constexpr Millis kConnectRetryMs = 10;
// The longest a request can be held (wait_ms up to 30 s, a kill up to about 3 s), with room.
constexpr int kAnswerWaitMs = 60'000;

struct CallFailure {
  std::string code;
  std::string message;
};

int print_failure(const CallFailure& failure) {
  const nlohmann::json body = {
      {"error", {{"code", failure.code}, {"message", failure.message}}}};
  const std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  [[maybe_unused]] const ssize_t ignored = write(STDOUT_FILENO, text.data(), text.size());
  return 1;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = write(fd, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return true;
}

// All of stdin, or nothing when it holds more than `limit` bytes.
std::optional<std::string> read_request(std::size_t limit) {
  std::string request;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t got = read(STDIN_FILENO, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return request;
    request.append(buffer, static_cast<std::size_t>(got));
    if (request.size() > limit) return std::nullopt;
  }
}

// -1 with errno set when nothing listens (yet) or the socket cannot be made.
int connect_to(const std::string& socket_path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
  if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    const int error = errno;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

// Starts `/proc/self/exe process-supervisor <dir>` as a daemon: a session of its own (setsid),
// not our child (the double fork), and fds 0-2 on /dev/null, so that it holds none of the
// pipes this command's output goes through and the command ends as soon as it has answered.
void start_supervisor(const std::string& state_dir) {
  const pid_t child = fork();
  if (child < 0) return;
  if (child == 0) {
    setsid();
    if (fork() != 0) _exit(0);
    const int null_fd = open("/dev/null", O_RDWR);
    for (int fd = 0; fd <= 2; ++fd) dup2(null_fd, fd);
    close_range(3, ~0u, 0);
    execl("/proc/self/exe", "vc-exec-agent", "process-supervisor", state_dir.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
}

// A connection to the supervisor, starting it (once) when nothing answers.
int connect_to_supervisor(const std::string& state_dir, CallFailure& failure) {
  const std::string socket_path = state_dir + "/supervisor.sock";
  if (socket_path.size() >= sizeof(sockaddr_un::sun_path)) {
    failure = {"failed", "the supervisor's socket path '" + socket_path + "' is too long for a "
                         "Unix socket (at most " +
                             std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes)"};
    return -1;
  }
  bool started = false;
  Millis give_up_at = 0;
  for (;;) {
    const int fd = connect_to(socket_path);
    if (fd >= 0) return fd;
    const int error = errno;
    if (error != ENOENT && error != ECONNREFUSED && error != EAGAIN) {
      failure = {"failed", "cannot connect to the process supervisor at '" + socket_path +
                               "': " + std::strerror(error)};
      return -1;
    }
    if (!started) {
      // Two calls may both get here; the second supervisor finds the first one's lock and
      // leaves quietly.
      start_supervisor(state_dir);
      started = true;
      give_up_at = monotonic_ms() + kSupervisorStartWaitMs;
    } else if (monotonic_ms() >= give_up_at) {
      failure = {"failed", "the process supervisor did not answer on '" + socket_path +
                               "' within 3 s of being started; its log: " + state_dir +
                               "/supervisor.log"};
      return -1;
    }
    usleep(static_cast<useconds_t>(kConnectRetryMs * 1000));
  }
}

std::optional<std::string> read_answer(int fd, CallFailure& failure) {
  MessageReader reader(kMaxAnswerBytes);
  char buffer[1 << 16];
  for (;;) {
    if (auto body = reader.body()) return body;
    if (reader.malformed()) {
      failure = {"failed", "the process supervisor's answer is malformed"};
      return std::nullopt;
    }
    pollfd ready{fd, POLLIN, 0};
    const int polled = poll(&ready, 1, kAnswerWaitMs);
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      failure = {"failed", "the process supervisor did not answer within 60 s"};
      return std::nullopt;
    }
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      failure = {"failed", "the process supervisor closed the connection without answering"};
      return std::nullopt;
    }
    reader.feed(std::string_view(buffer, static_cast<std::size_t>(got)));
  }
}

// The supervisor writes an error answer as {"error": {...}} and nothing else (its JSON keys
// are sorted, and no result has a key before "error"), so the first bytes tell; an answer of
// megabytes need not be parsed for that.
bool is_error_answer(const std::string& answer) { return answer.starts_with("{\"error\":"); }

// A start without "cwd" runs where this call runs: the computer's workspace, where the exec
// agent runs every command (the supervisor's own folder is wherever the first call left it).
std::string with_default_working_directory(const std::string& request) {
  if (request.find("\"start\"") == std::string::npos) return request;
  auto body = nlohmann::json::parse(request, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || body.value("op", std::string()) != "start" || body.contains("cwd")) {
    return request;
  }
  char here[4096];
  if (getcwd(here, sizeof here) == nullptr) return request;
  body["cwd"] = here;
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

int run_process_call() {
  const auto request = read_request(kMaxRequestBytes);
  if (!request) {
    return print_failure({"invalid_argument", "the request is larger than " +
                                                  std::to_string(kMaxRequestBytes) + " bytes"});
  }
  const std::string state_dir = state_dir_path();
  if (const auto problem = prepare_state_dir(state_dir)) return print_failure({"failed", *problem});

  CallFailure failure;
  const int fd = connect_to_supervisor(state_dir, failure);
  if (fd < 0) return print_failure(failure);
  if (!write_all(fd, encode_message(with_default_working_directory(*request)))) {
    close(fd);
    return print_failure({"failed", "the process supervisor closed the connection"});
  }
  const auto answer = read_answer(fd, failure);
  close(fd);
  if (!answer) return print_failure(failure);
  if (!write_all(STDOUT_FILENO, *answer + "\n")) return 1;
  return is_error_answer(*answer) ? 1 : 0;
}

}  // namespace vc::exec_agent
