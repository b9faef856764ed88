// detached_spawn.cpp — double fork with a close-on-exec pipe that reports the grandchild's pid
// and, if exec fails, its errno.
#include "detached_spawn.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>

#include "agent_error.h"

namespace vc::desktop_agent {
namespace {

bool read_full(int fd, void* buffer, std::size_t size) {
  auto* out = static_cast<char*>(buffer);
  std::size_t done = 0;
  while (done < size) {
    const ssize_t got = read(fd, out + done, size - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<std::size_t>(got);
  }
  return true;
}

void write_full(int fd, const void* buffer, std::size_t size) {
  const auto* in = static_cast<const char*>(buffer);
  while (size > 0) {
    const ssize_t put = write(fd, in, size);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return;
    in += put;
    size -= static_cast<std::size_t>(put);
  }
}

bool executable_file(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string self_executable() {
  char path[PATH_MAX];
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  if (length <= 0) return "/usr/local/bin/vc-desktop-agent";
  path[length] = '\0';
  return path;
}

void close_on_exec_from(int first_fd) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, static_cast<unsigned>(first_fd), ~0U, 4 /* CLOEXEC */) == 0) return;
#endif
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return;
  const int own = dirfd(dir);
  while (dirent* entry = readdir(dir)) {
    const int fd = atoi(entry->d_name);
    if (fd >= first_fd && fd != own) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  closedir(dir);
}

std::string find_executable(const std::string& name, const Environment& environment) {
  if (name.empty()) return std::string();
  if (name.find('/') != std::string::npos) return executable_file(name) ? name : std::string();
  auto it = environment.find("PATH");
  const std::string path = it != environment.end() && !it->second.empty()
                               ? it->second
                               : "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    const std::string folder = end > start ? path.substr(start, end - start) : ".";
    const std::string candidate = folder + "/" + name;
    if (executable_file(candidate)) return candidate;
    start = end + 1;
  }
  return std::string();
}

pid_t spawn_detached(const std::vector<std::string>& argv, const Environment& environment,
                     const std::string& directory, const std::string& log_path) {
  if (argv.empty()) throw_invalid("Nothing to start.");
  // Everything the children need is built before fork.
  std::vector<std::string> env_strings = environment_strings(environment);
  std::vector<char*> arg_pointers;
  for (const std::string& arg : argv) arg_pointers.push_back(const_cast<char*>(arg.c_str()));
  arg_pointers.push_back(nullptr);
  std::vector<char*> env_pointers;
  for (const std::string& entry : env_strings) env_pointers.push_back(const_cast<char*>(entry.c_str()));
  env_pointers.push_back(nullptr);

  int report[2];
  if (pipe2(report, O_CLOEXEC) != 0) throw_failed("Could not start a program: no pipe.");
  const pid_t middle = fork();
  if (middle < 0) {
    close(report[0]);
    close(report[1]);
    throw_failed(std::string("Could not start a program: ") + strerror(errno) + ".");
  }
  if (middle == 0) {
    close(report[0]);
    setsid();
    const pid_t child = fork();
    if (child != 0) {
      write_full(report[1], &child, sizeof child);
      _exit(0);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGPIPE, SIGCHLD, SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log_fd < 0) log_fd = open("/dev/null", O_WRONLY);
    if (log_fd >= 0) {
      dup2(log_fd, STDOUT_FILENO);
      dup2(log_fd, STDERR_FILENO);
    }
    close_on_exec_from(3);
    if (chdir(directory.c_str()) != 0 && chdir("/") != 0) {
      // "/" always exists; nothing else to try.
    }
    execve(arg_pointers[0], arg_pointers.data(), env_pointers.data());
    const int error = errno;
    write_full(report[1], &error, sizeof error);
    _exit(127);
  }
  close(report[1]);
  int status = 0;
  while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
  }
  pid_t child = -1;
  const bool have_pid = read_full(report[0], &child, sizeof child);
  int exec_error = 0;
  const bool failed = have_pid && read_full(report[0], &exec_error, sizeof exec_error);
  close(report[0]);
  if (!have_pid) throw_failed("Could not start '" + argv[0] + "'.");
  if (failed) {
    throw_failed("Could not start '" + argv[0] + "': " + strerror(exec_error) + ".");
  }
  return child;
}

}  // namespace vc::desktop_agent
