// podman_service.cpp — see podman_service.h.
#include "podman_service.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

namespace vc::podman {
namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(20);

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "stopped";
}

// In the child between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_service(pid_t parent, const char* path, char* const argv[]) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) _exit(127);  // the parent went away before prctl took effect
  setpgid(0, 0);  // the terminal's signals are for the host, which stops the service itself
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);  // stdout carries the host's MCP messages
  execve(path, argv, environ);
  _exit(127);
}

}  // namespace

bool unix_socket_accepts(const std::string& path) {
  sockaddr_un address{};
  if (path.size() >= sizeof(address.sun_path)) return false;
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) == 0;
  close(fd);
  return ok;
}

std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    std::string candidate = dir + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

PodmanService::PodmanService(std::string socket_path, std::string podman)
    : socket_path_(std::move(socket_path)), podman_(std::move(podman)) {}

PodmanService::~PodmanService() { stop(); }

bool PodmanService::start(std::string& message) {
  if (pid_ > 0) return true;
  const std::string executable = find_executable(podman_);
  if (executable.empty()) {
    message = "the podman executable '" + podman_ +
              "' was not found on PATH, so no Podman API service could be started. Install "
              "podman, or start `podman system service` yourself and pass --podman-socket";
    return false;
  }
  std::error_code ignored;
  const auto directory = std::filesystem::path(socket_path_).parent_path();
  std::filesystem::create_directories(directory, ignored);
  chmod(directory.c_str(), 0700);
  std::filesystem::remove(socket_path_, ignored);  // a stale socket would make the bind fail

  // Everything the child needs is built before fork(): it may only make async-signal-safe calls.
  std::string url = "unix://" + socket_path_;
  std::vector<std::string> args = {"podman", "system", "service", "--time=0", url};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  pid_t child = fork();
  if (child < 0) {
    message = std::string("fork failed: ") + std::strerror(errno);
    return false;
  }
  if (child == 0) exec_service(parent, executable.c_str(), argv.data());
  pid_ = child;

  const auto deadline = std::chrono::steady_clock::now() + kStartTimeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (unix_socket_accepts(socket_path_)) return true;
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      message = "`" + executable + " system service --time=0 " + url + "` " +
                describe_wait_status(status) +
                " before it listened (its messages are on the server's stderr)";
      return false;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  stop();
  message = "`" + executable + " system service` did not listen on " + socket_path_ +
            " within " + std::to_string(kStartTimeout.count()) + " s";
  return false;
}

void PodmanService::stop() noexcept {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + kStopTimeout;
  int status = 0;
  bool reaped = false;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!reaped) {
    kill(pid_, SIGKILL);
    waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  std::error_code ignored;
  std::filesystem::remove(socket_path_, ignored);
}

}  // namespace vc::podman
