// shutdown_watchdog.h — the last resort of a shutdown (docs/compatibility.md, "Signals and
// shutdown").
//
// Graceful shutdown waits for plugin operations to stop and for stdout to drain; either can
// hang (a wedged engine, a client that no longer reads). Once armed, the watchdog ends the
// process with _exit(0) if it is still alive after the grace period. It runs on its own
// thread because the loop thread is the one that might be stuck.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace vc::server {

class ShutdownWatchdog {
 public:
  ShutdownWatchdog() = default;
  // Disarms and joins.
  ~ShutdownWatchdog();
  ShutdownWatchdog(const ShutdownWatchdog&) = delete;
  ShutdownWatchdog& operator=(const ShutdownWatchdog&) = delete;

  // [any-thread] Starts the countdown; later calls while armed are ignored.
  void arm(std::chrono::milliseconds grace);
  // [any-thread] The shutdown finished in time.
  void disarm();

 private:
  void wait(std::chrono::milliseconds grace);

  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false;
  bool disarmed_ = false;
  std::thread thread_;
};

}  // namespace vc::server
