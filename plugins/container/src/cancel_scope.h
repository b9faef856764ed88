// cancel_scope.h — the SDK's CancelScope, and tying an engine call to it.
//
// A flow makes one engine call at a time. Before each call it registers how to abort that
// call; a cancel runs the current canceller and marks the scope, so the flow's next step sees
// cancelled() and stops.
#pragma once

#include <memory>

#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc_engine/request_handle.h>

namespace vc::container {

using sdk::CancelScope;

// Registers `handle` with `scope` when there is one (uncancellable steps pass nullptr).
inline void track_in(const std::shared_ptr<CancelScope>& scope, const engine::RequestHandle& handle) {
  if (scope) scope->set_canceller([handle] { handle.cancel(); });
}

inline bool is_cancelled(const std::shared_ptr<CancelScope>& scope) {
  return scope && scope->cancelled();
}

}  // namespace vc::container
