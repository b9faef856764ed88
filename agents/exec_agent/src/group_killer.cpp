#include "group_killer.h"

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "log.h"

namespace vc::exec_agent {

bool process_group_exists(pid_t pgid) { return kill(-pgid, 0) == 0 || errno == EPERM; }

void GroupKiller::terminate(pid_t pgid, Millis now, Millis grace_ms) {
  const bool pending = std::any_of(pending_.begin(), pending_.end(),
                                   [pgid](const PendingKill& kill) { return kill.pgid == pgid; });
  kill(-pgid, SIGTERM);
  // A stopped process acts on TERM only once continued (shells send CONT after TERM for the
  // same reason); without this a stopped command would always wait for the KILL.
  kill(-pgid, SIGCONT);
  if (!pending) pending_.push_back({pgid, now + grace_ms});
}

void GroupKiller::kill_now(pid_t pgid, Millis now) {
  kill(-pgid, SIGKILL);
  forget(pgid);
  pending_.push_back({pgid, now, /*kill_sent=*/true});
}

void GroupKiller::forget(pid_t pgid) {
  std::erase_if(pending_, [pgid](const PendingKill& kill) { return kill.pgid == pgid; });
}

void GroupKiller::on_timer(Millis now) {
  std::erase_if(pending_, [now](PendingKill& pending) {
    if (pending.kill_sent) {
      return now >= pending.kill_at + kWatchAfterKillMs || !process_group_exists(pending.pgid);
    }
    if (pending.kill_at > now) return false;
    if (!process_group_exists(pending.pgid)) return true;
    log_line("process group %d outlived its grace after SIGTERM: SIGKILL",
             static_cast<int>(pending.pgid));
    kill(-pending.pgid, SIGKILL);
    pending.kill_sent = true;
    return false;
  });
}

std::optional<Millis> GroupKiller::next_deadline() const {
  // A KILLed group's members vanish as they are reaped, which SIGCHLD wakes the loop for; the
  // watch's own end is the fallback.
  std::optional<Millis> nearest;
  for (const auto& pending : pending_) {
    const Millis due = pending.kill_sent ? pending.kill_at + kWatchAfterKillMs : pending.kill_at;
    if (!nearest || due < *nearest) nearest = due;
  }
  return nearest;
}

bool GroupKiller::has_live_groups() {
  std::erase_if(pending_,
                [](const PendingKill& pending) { return !process_group_exists(pending.pgid); });
  return !pending_.empty();
}

void GroupKiller::kill_all_pending() {
  for (const auto& pending : pending_) {
    if (process_group_exists(pending.pgid)) kill(-pending.pgid, SIGKILL);
  }
  pending_.clear();
}

}  // namespace vc::exec_agent
