// shutdown_watchdog.cpp — see shutdown_watchdog.h.
#include "server/shutdown_watchdog.h"

#include <unistd.h>

#include <spdlog/spdlog.h>

namespace vc::server {

ShutdownWatchdog::~ShutdownWatchdog() {
  disarm();
  if (thread_.joinable()) thread_.join();
}

void ShutdownWatchdog::arm(std::chrono::milliseconds grace) {
  std::lock_guard lock(mutex_);
  if (armed_ || disarmed_) return;
  armed_ = true;
  thread_ = std::thread([this, grace] { wait(grace); });
}

void ShutdownWatchdog::disarm() {
  {
    std::lock_guard lock(mutex_);
    disarmed_ = true;
  }
  wake_.notify_all();
}

void ShutdownWatchdog::wait(std::chrono::milliseconds grace) {
  std::unique_lock lock(mutex_);
  if (wake_.wait_for(lock, grace, [this] { return disarmed_; })) return;
  spdlog::error("shutdown did not finish within {} ms; exiting now", grace.count());
  spdlog::default_logger()->flush();
  _exit(0);
}

}  // namespace vc::server
