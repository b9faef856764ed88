// op_tracker.h — every accepted operation of one backend instance, and the exactly-once rule.
//
// The ABI's central promise: an op function that returned VC_OK is followed by exactly one
// op->complete(). Completion goes through this tracker: whoever removes the op from it calls
// complete(); everybody else finds it gone. That also makes a late ops->cancel() for a
// finished op harmless.
//
// Threading: accept(), forget() and cancel() run on the host's loop thread; everything else on
// the EngineLoop thread, where all of an op's work happens. A cancel is therefore posted to the
// EngineLoop, behind the task that started the op (post() is FIFO), so the op's flow has always
// installed its cancel hook, or already finished, when the hook runs.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>

#include <vc-backend-1/vc_sdk.h>
#include <vc_engine/engine_loop.h>

#include "op_outcome.h"

namespace vc::container {

// One accepted op.
class PendingOp {
 public:
  explicit PendingOp(const vc_op* op) : op_(op) {}

  // [any-thread] True once the host asked to cancel the op (or the instance is closing).
  bool cancel_requested() const { return cancel_requested_.load(std::memory_order_acquire); }

  // [EngineLoop thread] What a cancel does right now (abort the engine call in flight, withdraw
  // a queued exec, ...). Replaced as the op moves on; cleared at completion. When the op was
  // already cancelled, the hook runs at once.
  void on_cancel(std::function<void()> hook);

 private:
  friend class OpTracker;
  const vc_op* op_;
  std::atomic<bool> cancel_requested_{false};
  std::function<void()> cancel_hook_;  // EngineLoop thread only
};

class OpTracker {
 public:
  explicit OpTracker(engine::EngineLoop& loop) : loop_(loop) {}

  // [host loop] Registers an op the caller is about to accept.
  std::shared_ptr<PendingOp> accept(const vc_op* op);
  // [host loop] Undoes accept() for an op that is rejected after all (its task was not posted).
  void forget(const std::shared_ptr<PendingOp>& pending);

  // [EngineLoop] Completes the op unless somebody did; returns whether this call did.
  bool complete(const std::shared_ptr<PendingOp>& pending, const OpOutcome& outcome);

  // [EngineLoop] Streams bytes of a live op (see vc_op.emit for the answers).
  vc_status emit(const std::shared_ptr<PendingOp>& pending, vc_stream stream, const void* data,
                 std::size_t len);

  // [host loop] ops->cancel(): flags the op and posts its hook to the EngineLoop.
  void cancel(const vc_op* op);

  // [host loop] destroy(): from now on nothing reaches the host any more (complete() and emit()
  // become no-ops) and every live op counts as cancelled.
  void close();

 private:
  engine::EngineLoop& loop_;
  std::mutex mutex_;
  std::unordered_map<const vc_op*, std::shared_ptr<PendingOp>> live_;
  std::atomic<bool> closed_{false};
};

}  // namespace vc::container
