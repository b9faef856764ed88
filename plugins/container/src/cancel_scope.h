// cancel_scope.h — what "cancel this flow now" means at each moment of a multi-step flow.
//
// A flow makes one engine call at a time. Before each call it registers how to abort that
// call; a cancel runs the current canceller and marks the scope, so the flow's next step sees
// cancelled() and stops. EngineLoop thread only.
#pragma once

#include <functional>
#include <memory>
#include <utility>

#include <vc_engine/request_handle.h>

namespace vc::container {

class CancelScope {
 public:
  static std::shared_ptr<CancelScope> make() { return std::make_shared<CancelScope>(); }

  bool cancelled() const { return cancelled_; }

  // Aborts what is in flight (once) and marks the scope.
  void cancel() {
    if (cancelled_) return;
    cancelled_ = true;
    auto canceller = std::move(canceller_);
    canceller_ = nullptr;
    if (canceller) canceller();
  }

  // Sets how to abort the current step. Runs it at once when the scope is already cancelled,
  // so a call started after cancel() ends promptly too.
  void set_canceller(std::function<void()> canceller) {
    if (cancelled_) {
      if (canceller) canceller();
      return;
    }
    canceller_ = std::move(canceller);
  }

  void track(const engine::RequestHandle& handle) {
    set_canceller([handle] { handle.cancel(); });
  }

  void clear() { canceller_ = nullptr; }

 private:
  bool cancelled_ = false;
  std::function<void()> canceller_;
};

// Registers `handle` with `scope` when there is one (uncancellable steps pass nullptr).
inline void track_in(const std::shared_ptr<CancelScope>& scope, const engine::RequestHandle& handle) {
  if (scope) scope->track(handle);
}

inline bool is_cancelled(const std::shared_ptr<CancelScope>& scope) {
  return scope && scope->cancelled();
}

}  // namespace vc::container
