#include "child_reaper.h"

#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>

#include "log.h"

namespace vc::exec_agent {

ChildReaper::~ChildReaper() {
  if (signal_fd_ >= 0) close(signal_fd_);
}

bool ChildReaper::open(std::string& error) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
    // Not fatal: commands still run; only orphans go to the container's init instead.
    log_line("cannot become the child subreaper: %s", std::strerror(errno));
  }
  sigset_t child_signal;
  sigemptyset(&child_signal);
  sigaddset(&child_signal, SIGCHLD);
  // Blocked, so it is only ever delivered through the signalfd; children unblock it.
  if (sigprocmask(SIG_BLOCK, &child_signal, nullptr) != 0) {
    error = std::string("sigprocmask: ") + std::strerror(errno);
    return false;
  }
  signal_fd_ = signalfd(-1, &child_signal, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signal_fd_ < 0) {
    error = std::string("signalfd: ") + std::strerror(errno);
    return false;
  }
  return true;
}

void ChildReaper::drain_signals() {
  // Several exits can share one queued SIGCHLD: the signals only say "look"; waitpid() in a
  // loop finds every child that ended.
  signalfd_siginfo infos[8];
  while (read(signal_fd_, infos, sizeof infos) > 0) {
  }
}

}  // namespace vc::exec_agent
