// op_registry.h — every accepted operation of one backend instance, and the exactly-once rule.
//
// The ABI's central promise is: an op function that returned VC_OK is followed by exactly one
// op->complete(). Several parties may want to finish the same op (the worker that ran it, a
// cancel arriving on the loop thread, destroy()), so completion goes through this registry:
// whoever removes the op from it calls complete(); everybody else finds it gone and does
// nothing. That also makes a late ops->cancel() for a finished op a harmless no-op.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>
#include <vc-backend-1/vc_sdk.h>

namespace vc_template {

// What an operation ends with: a result document, or an error status with a message and
// optional details (schemas/error_details.json).
struct OpResult {
  vc_status status = VC_OK;
  nlohmann::json document;  // result when status >= 0; details or null when < 0
  std::string message;      // human-readable, for status < 0

  static OpResult ok(nlohmann::json document);
  static OpResult error(vc_status status, std::string message,
                        nlohmann::json details = nullptr);
};

// One accepted op. Shared by whoever may finish it; the vc_op pointer is only used through the
// registry, which knows whether it is still live.
class OpState {
 public:
  explicit OpState(const vc_op* op) : op_(op) {}

  // [any-thread] True once ops->cancel() was called for this op (or the instance is closing).
  bool cancel_requested() const { return cancel_requested_.load(std::memory_order_acquire); }

 private:
  friend class OpRegistry;
  const vc_op* op_;
  std::atomic<bool> cancel_requested_{false};
  std::function<void()> cancel_hook_;  // guarded by OpRegistry::mutex_
};

class OpRegistry {
 public:
  // [loop-thread] Registers an op the caller is about to accept (return VC_OK for).
  std::shared_ptr<OpState> accept(const vc_op* op);

  // [loop-thread] Undoes accept() for an op function that ends up rejecting the op after all.
  void forget(const std::shared_ptr<OpState>& state);

  // [any-thread] Completes the op if nobody did yet; returns whether this call did.
  bool complete(const std::shared_ptr<OpState>& state, const OpResult& result);

  // [any-thread] Streams bytes for a live op. Call only from the thread that will complete it,
  // so that every emit happens-before the completion.
  vc_status emit(const std::shared_ptr<OpState>& state, vc_stream stream, const void* data,
                 size_t len);

  // [any-thread] Nonzero when the host flagged the op as cancelled. Same caller rule as emit().
  bool host_cancelled(const std::shared_ptr<OpState>& state);

  // [any-thread] Sets what a cancel does for this op right now (withdraw it from a queue,
  // interrupt a running command, ...), replacing the previous hook. When the op was already
  // cancelled, the hook runs at once on this thread. Hooks must be idempotent.
  void on_cancel(const std::shared_ptr<OpState>& state, std::function<void()> hook);

  // [loop-thread] ops->cancel(): flags the op and runs its hook. Unknown ops are ignored.
  void cancel(const vc_op* op);

  // [loop-thread] destroy(): flags and cancels every live op, and from now on never calls the
  // host again (complete() and emit() become no-ops).
  void close();

 private:
  std::mutex mutex_;
  std::unordered_map<const vc_op*, std::shared_ptr<OpState>> live_;
  std::atomic<bool> closed_{false};
};

}  // namespace vc_template
