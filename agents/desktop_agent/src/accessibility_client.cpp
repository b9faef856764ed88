// accessibility_client.cpp — spawning the worker with the session's bus, one line each way.
#include "accessibility_client.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <vector>

#include <X11/Xatom.h>

#include "vc_agent_common/clock.h"
#include "detached_spawn.h"
#include "x_properties.h"

namespace vc::desktop_agent {

using agent_common::monotonic_ms;

namespace {

constexpr int kSnapshotTimeoutMs = 15000;
constexpr int kBoundsTimeoutMs = 5000;
const char* kNoBus = "The accessibility bus is not available (the desktop is starting, or off).";

}  // namespace

AccessibilityClient::AccessibilityClient(XConnection& x) : x_(x) {}

AccessibilityClient::~AccessibilityClient() { stop_worker(); }

// at-spi-bus-launcher publishes the bus on the root window; libatspi reads it from there too.
std::string AccessibilityClient::bus_property() {
  auto value = read_bytes(x_, x_.root(), x_.atom("AT_SPI_BUS"), AnyPropertyType);
  x_.check_alive();
  std::string bus = value ? *value : std::string();
  while (!bus.empty() && bus.back() == '\0') bus.pop_back();
  return bus;
}

void AccessibilityClient::stop_worker() {
  if (to_worker_ >= 0) close(to_worker_);
  if (from_worker_ >= 0) close(from_worker_);
  to_worker_ = from_worker_ = -1;
  buffer_.clear();
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
}

void AccessibilityClient::ensure_worker() {
  x_.display();
  const std::string bus = bus_property();
  if (bus.empty()) {
    stop_worker();
    throw_unavailable(kNoBus);
  }
  if (pid_ > 0) {
    const bool exited = waitpid(pid_, nullptr, WNOHANG) == pid_;
    if (exited) pid_ = -1;
    if (!exited && bus == worker_bus_ && worker_generation_ == x_.generation()) return;
    stop_worker();
  }

  Environment environment = own_environment();
  environment["AT_SPI_BUS_ADDRESS"] = bus;
  std::vector<std::string> env_strings = environment_strings(environment);
  std::vector<char*> env_pointers;
  for (std::string& entry : env_strings) env_pointers.push_back(entry.data());
  env_pointers.push_back(nullptr);
  std::string program = self_executable();
  std::string name = "vc-desktop-agent";
  std::string flag = "--accessibility-worker";
  char* argv[] = {name.data(), flag.data(), nullptr};

  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) throw_failed("Could not start the accessibility worker.");
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    throw_failed("Could not start the accessibility worker.");
  }
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1]}) close(fd);
    throw_failed("Could not start the accessibility worker.");
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    dup2(in_pipe[0], STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    close_on_exec_from(3);
    signal(SIGPIPE, SIG_DFL);
    execve(program.c_str(), argv, env_pointers.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  pid_ = pid;
  to_worker_ = in_pipe[1];
  from_worker_ = out_pipe[0];
  worker_bus_ = bus;
  worker_generation_ = x_.generation();
  buffer_.clear();
}

json AccessibilityClient::ask(json request, int timeout_ms, const char* what) {
  ensure_worker();
  request["width"] = x_.width();
  request["height"] = x_.height();
  const std::string line = request.dump() + "\n";
  std::size_t done = 0;
  while (done < line.size()) {
    const ssize_t put = write(to_worker_, line.data() + done, line.size() - done);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) {
      stop_worker();
      throw_failed("The accessibility worker stopped; try again.");
    }
    done += static_cast<std::size_t>(put);
  }
  const std::int64_t deadline = monotonic_ms() + timeout_ms;
  std::size_t newline;
  while ((newline = buffer_.find('\n')) == std::string::npos) {
    // X events (clipboard requests) are served while the worker walks the tree.
    x_.wait_until(deadline, [] { return false; }, from_worker_);
    if (monotonic_ms() >= deadline) {
      stop_worker();
      throw_timeout(std::string("The accessibility ") + what + " did not finish within " +
                    std::to_string(timeout_ms / 1000) + " seconds.");
    }
    char chunk[65536];
    const ssize_t got = read(from_worker_, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0 && errno == EAGAIN) continue;
    if (got <= 0) {
      stop_worker();
      throw_failed("The accessibility worker stopped; try again.");
    }
    buffer_.append(chunk, static_cast<std::size_t>(got));
  }
  const std::string reply_line = buffer_.substr(0, newline);
  buffer_.erase(0, newline + 1);
  json reply = json::parse(reply_line, nullptr, false);
  if (!reply.is_object()) {
    stop_worker();
    throw_failed("The accessibility worker gave an unreadable answer.");
  }
  if (reply.value("ok", false)) return reply.value("result", json::object());
  const std::string code = reply.value("code", std::string("failed"));
  const std::string message = reply.value("error", std::string("The accessibility request failed."));
  if (code == "unavailable") {
    stop_worker();
    throw_unavailable(message);
  }
  if (code == "invalid_argument") throw_invalid(message);
  if (code == "not_found") throw_not_found(message);
  if (code == "timeout") throw_timeout(message);
  throw_failed(message);
}

json AccessibilityClient::snapshot_action(const Request&) {
  return ask(json{{"action", "snapshot"}}, kSnapshotTimeoutMs, "snapshot");
}

json AccessibilityClient::element_action(const Request& request) {
  const std::string& ref = request.string("ref");
  if (ref.compare(0, 6, "atspi:") != 0) {
    throw_invalid("Element references must start with 'atspi:'.");
  }
  json forwarded{{"action", "element_action"},
                 {"ref", ref},
                 {"operation", request.choice("operation", {"focus", "press", "set_text"})}};
  if (forwarded["operation"] == "set_text") forwarded["text"] = request.string("text");
  if (auto role = request.optional_string("expect_role")) forwarded["expect_role"] = *role;
  if (auto name = request.optional_string("expect_name")) forwarded["expect_name"] = *name;
  return ask(std::move(forwarded), kBoundsTimeoutMs, "element action");
}

json AccessibilityClient::element_bounds_action(const Request& request) {
  const std::string& ref = request.string("ref");
  if (ref.compare(0, 6, "atspi:") != 0) {
    throw_invalid("Element references must start with 'atspi:'.");
  }
  return ask(json{{"action", "element_bounds"}, {"ref", ref}}, kBoundsTimeoutMs,
             "element lookup");
}

}  // namespace vc::desktop_agent
