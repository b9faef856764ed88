// exec_watchdog.h — the host's own deadline for an exec the backend does not finish.
//
// The backend owns a command's timeout: when timeout_ms passes it kills the command and
// completes the op as timed_out. A backend that never completes the op (hung, deadlocked,
// ignoring cancel) would hold the tool call, and the client waiting on it, forever. So the host
// gives every exec its timeout plus kExecGrace, and then stops waiting for it.
//
// Backends run the execs of one computer one at a time, in call order, so an exec queued behind
// others has not started yet: its clock starts only when every exec started before it on the
// same computer has completed, or has been given up on.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <uv.h>

namespace vc::computers {

// Time a backend gets beyond the command's own timeout to kill it and report: enough for a
// slow engine to tear a process tree down, short enough that a user gives up on the call later
// than the server does.
inline constexpr std::chrono::seconds kExecGrace{10};

class ExecWatchdog {
 public:
  // [loop-thread] Watches one exec just started on `computer_id` of `backend` (any pointer that
  // identifies the backend instance). `expired` runs at most once, on the loop thread, when the
  // exec's clock has run for `timeout` + `grace`; the watchdog leaves the computer's queue first,
  // so the next exec's clock starts. Destroying the watchdog (the exec completed) stops it.
  // The timer does not keep the loop alive by itself: the pending op does.
  static std::unique_ptr<ExecWatchdog> start(uv_loop_t* loop, const void* backend,
                                             std::string computer_id,
                                             std::chrono::milliseconds timeout,
                                             std::chrono::milliseconds grace,
                                             std::function<void()> expired);

  ~ExecWatchdog();
  ExecWatchdog(const ExecWatchdog&) = delete;
  ExecWatchdog& operator=(const ExecWatchdog&) = delete;

 private:
  ExecWatchdog(const void* backend, std::string computer_id, uint64_t allowance_ms,
               std::function<void()> expired);

  void join_queue();
  void leave_queue();
  void start_clock();
  static void on_deadline(uv_timer_t* timer);

  const void* const backend_;
  const std::string computer_id_;
  const uint64_t allowance_ms_;
  std::function<void()> expired_;
  uv_timer_t* timer_ = nullptr;  // freed by its close callback
  bool queued_ = false;
};

}  // namespace vc::computers
