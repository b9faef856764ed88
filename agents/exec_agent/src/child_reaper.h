// child_reaper.h — SIGCHLD as a readable descriptor, and the agent as everyone's reaper.
//
// SIGCHLD is blocked and read from a signalfd, so a child's exit is one more event of the poll
// loop rather than an asynchronous handler. The agent is also the child subreaper
// (PR_SET_CHILD_SUBREAPER): a command's orphans (a daemon whose parent exited) are reparented
// to the agent instead of the container's init, which in many images is a program that never
// reaps them; here they are reaped like any child, never left as zombies.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>

#include <string>

namespace vc::exec_agent {

class ChildReaper {
 public:
  ChildReaper() = default;
  ~ChildReaper();
  ChildReaper(const ChildReaper&) = delete;
  ChildReaper& operator=(const ChildReaper&) = delete;

  // Before any fork. False (with `error`) when the signalfd cannot be made.
  bool open(std::string& error);
  int fd() const { return signal_fd_; }

  // Empties the signalfd and reaps every child that has ended: on_exit(pid, wait_status) for
  // each, a command's leader or an orphan alike (the caller tells them apart).
  template <typename OnExit>
  void reap(OnExit&& on_exit) {
    drain_signals();
    for (;;) {
      int status = 0;
      const pid_t pid = waitpid(-1, &status, WNOHANG);
      if (pid <= 0) return;  // 0: children left, none ended; -1 ECHILD: no children
      on_exit(pid, status);
    }
  }

 private:
  void drain_signals();

  int signal_fd_ = -1;
};

}  // namespace vc::exec_agent
