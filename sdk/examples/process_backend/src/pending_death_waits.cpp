// pending_death_waits.cpp — the table of pending wait_for_death ops.
#include "pending_death_waits.h"

#include <utility>

namespace vc_process_backend {

void PendingDeathWaits::watch(const std::string& computer_id, std::shared_ptr<vc::sdk::PendingOp> op) {
  std::lock_guard lock(mutex_);
  watchers_.emplace(computer_id, std::move(op));
}

bool PendingDeathWaits::unwatch(const std::shared_ptr<vc::sdk::PendingOp>& op) {
  std::lock_guard lock(mutex_);
  for (auto it = watchers_.begin(); it != watchers_.end(); ++it) {
    if (it->second == op) {
      watchers_.erase(it);
      return true;
    }
  }
  return false;
}

std::vector<std::shared_ptr<vc::sdk::PendingOp>> PendingDeathWaits::take(const std::string& computer_id) {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<vc::sdk::PendingOp>> taken;
  auto [first, last] = watchers_.equal_range(computer_id);
  for (auto it = first; it != last; ++it) taken.push_back(std::move(it->second));
  watchers_.erase(first, last);
  return taken;
}

}  // namespace vc_process_backend
