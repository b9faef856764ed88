// group_killer.h — ending a command's process group: SIGTERM, then SIGKILL after a grace.
//
// Kept apart from Command because the grace can outlive the command's report: a leader that
// exits on TERM is reported at once while a member of its group that ignores TERM still gets
// its KILL 500 ms after the TERM (docs/exec-agent.md: "SIGKILL 500 ms later if anything of it
// is left"). The process supervisor ends its processes' groups with the same killer and a
// longer grace (docs/processes.md: "KILL 2 s later"). Single-threaded, like its owners.
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

#include "vc_agent_common/clock.h"

namespace vc::exec_agent {

using agent_common::Millis;

inline constexpr Millis kKillGraceMs = 500;
// How long a KILLed group is watched for (its members gone, reaped) before the agent stops
// caring: only a process stuck in the kernel outlives SIGKILL that long.
inline constexpr Millis kWatchAfterKillMs = 1000;

// True while the process group has a member (a zombie included: it is not gone until reaped).
bool process_group_exists(pid_t pgid);

class GroupKiller {
 public:
  // Sends SIGTERM to the group now and SIGKILL at now + grace_ms if anything of it is left. A
  // group already being terminated keeps its first deadline.
  void terminate(pid_t pgid, Millis now, Millis grace_ms = kKillGraceMs);
  // SIGKILL at once, no grace.
  void kill_now(pid_t pgid, Millis now);
  // The kernel just gave `pid` to a new process: no group with that id existed any more, so a
  // pending KILL for it must not fall on the newcomer's group.
  void forget(pid_t pgid);

  void on_timer(Millis now);
  std::optional<Millis> next_deadline() const;
  // True while a group this killer has signalled still has members (zombies included), so
  // that a closing agent reaps them rather than leave them to the container's init. Groups
  // found gone are dropped on the way.
  bool has_live_groups();
  // Shutdown's last word: KILL every group still here.
  void kill_all_pending();

 private:
  struct PendingKill {
    pid_t pgid;
    Millis kill_at;  // when SIGKILL is (or was) due
    bool kill_sent = false;
  };
  std::vector<PendingKill> pending_;
};

}  // namespace vc::exec_agent
