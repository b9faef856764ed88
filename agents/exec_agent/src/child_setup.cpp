// child_setup.cpp — the steps between fork and exec shared by every child (see child_setup.h).
// Runs only in a forked child of a single-threaded parent.
#include "child_setup.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

namespace vc::exec_agent {

void reset_signal_handling() {
  struct sigaction defaults {};
  defaults.sa_handler = SIG_DFL;
  sigemptyset(&defaults.sa_mask);
  for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
    sigaction(signal_number, &defaults, nullptr);  // fails harmlessly for KILL, STOP, reserved
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

void write_to_stderr(std::initializer_list<const char*> parts) {
  std::string line;
  for (const char* part : parts) line += part;
  line += '\n';
  [[maybe_unused]] const ssize_t ignored = write(STDERR_FILENO, line.data(), line.size());
}

void exec_as_a_shell_would(const std::vector<std::string>& words) {
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (const auto& word : words) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  // execvp reads PATH from the environment as it is now, so a PATH set by the caller just
  // before is the one searched.
  execvp(argv[0], argv.data());

  const int exec_error = errno;
  write_to_stderr({argv[0], ": ", std::strerror(exec_error)});
  _exit(exec_error == ENOENT ? 127 : 126);
}

}  // namespace vc::exec_agent
