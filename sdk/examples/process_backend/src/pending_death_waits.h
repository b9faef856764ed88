// pending_death_waits.h — pending wait_for_death ops, by computer.
//
// A wait_for_death op usually stays pending for the computer's whole life. Waiting costs no
// thread here: the op just sits in this table until something ends it (a cancel, or the
// computer's directory being removed through this backend).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vc-backend-1/cpp/op_registry.h>

namespace vc_process_backend {

class PendingDeathWaits {
 public:
  // [any-thread] Starts watching `computer_id` for the op.
  void watch(const std::string& computer_id, std::shared_ptr<vc::sdk::PendingOp> op);

  // [any-thread] Stops watching for the op; false when it was not watched (any more).
  bool unwatch(const std::shared_ptr<vc::sdk::PendingOp>& op);

  // [any-thread] Removes and returns every op watching `computer_id`.
  std::vector<std::shared_ptr<vc::sdk::PendingOp>> take(const std::string& computer_id);

 private:
  std::mutex mutex_;
  std::multimap<std::string, std::shared_ptr<vc::sdk::PendingOp>> watchers_;
};

}  // namespace vc_process_backend
