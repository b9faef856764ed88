// cancel_scope.h — what "stop this work now" means at each moment of a multi-step operation.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). Work that goes
// through several steps (an engine call, then a process, then another call) registers, before
// each step, how to abort that step. A cancel runs the current canceller once and marks the
// scope, so the next step sees cancelled() and stops instead of starting. Hook a scope to an
// op with PendingOp::on_cancel([scope] { scope->cancel(); }).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <utility>

namespace vc::sdk {

class CancelScope {
 public:
  static std::shared_ptr<CancelScope> make() { return std::make_shared<CancelScope>(); }

  // [any-thread]
  bool cancelled() const {
    std::lock_guard lock(mutex_);
    return cancelled_;
  }

  // [any-thread] Marks the scope and runs the current canceller, once; later calls do nothing.
  // The canceller runs on the calling thread, outside the scope's lock.
  void cancel() {
    std::function<void()> canceller;
    {
      std::lock_guard lock(mutex_);
      if (cancelled_) return;
      cancelled_ = true;
      canceller = std::exchange(canceller_, nullptr);
    }
    if (canceller) canceller();
  }

  // [any-thread] Sets how to abort the current step. When the scope is already cancelled the
  // canceller runs at once on this thread, so a step started after cancel() ends promptly too.
  void set_canceller(std::function<void()> canceller) {
    {
      std::lock_guard lock(mutex_);
      if (!cancelled_) {
        canceller_ = std::move(canceller);
        return;
      }
    }
    if (canceller) canceller();
  }

  // [any-thread] The current step ended: there is nothing left to abort.
  void clear() {
    std::function<void()> released;  // destroyed outside the lock: it may own the last references
    std::lock_guard lock(mutex_);
    released = std::exchange(canceller_, nullptr);
  }

 private:
  mutable std::mutex mutex_;
  bool cancelled_ = false;
  std::function<void()> canceller_;
};

}  // namespace vc::sdk
