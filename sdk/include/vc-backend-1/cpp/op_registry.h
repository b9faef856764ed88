// op_registry.h — the accepted operations of one backend instance, each completed exactly once.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp).
//
// The ABI's central promise: an op function that returned VC_OK is followed by exactly one
// op->complete(). Several parties may race to finish an op (the worker that ran it, a cancel,
// destroy()), so completion goes through the registry: whoever removes the op from it calls
// complete(); everybody else finds it gone and does nothing. That also makes a late
// ops->cancel() for a finished op harmless, and a vc_op address the host reuses for a new op
// can never be finished by a stale holder of the old one.
//
// Ops are told apart by vc_op.id where the host sets it (ABI 1.1: never reused), and by their
// address under a 1.0 host (unique only among pending ops; see vc_op.h, "Identity").
//
// Cancellation: ops->cancel() flags the op (PendingOp::cancel_requested()) and runs the op's
// current cancel hook — on the thread that called cancel(), or wherever the dispatcher given to
// the constructor sends it (for example the plugin's own event loop, so that a hook touching
// loop-owned state runs there, after the task that started the op).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

#include "op_result.h"

namespace vc::sdk {

// [any-thread] The host's id of `op` (vc_op.id, ABI 1.1), or 0 under a 1.0 host, which has none.
inline std::uint64_t op_id(const vc_op* op) {
  return VC_HAS_FIELD(op, vc_op, id) ? op->id : 0;
}

// What the registry files an op under: its id when the host gives one, else its address.
struct OpKey {
  std::uint64_t id = 0;
  const vc_op* address = nullptr;  // only when id == 0

  static OpKey of(const vc_op* op) {
    const std::uint64_t id = op_id(op);
    return id != 0 ? OpKey{id, nullptr} : OpKey{0, op};
  }
  bool operator==(const OpKey&) const = default;
};

struct OpKeyHash {
  std::size_t operator()(const OpKey& key) const noexcept {
    return key.id != 0 ? std::hash<std::uint64_t>{}(key.id)
                       : std::hash<const vc_op*>{}(key.address);
  }
};

// One accepted op, shared by whoever may finish it.
class PendingOp {
 public:
  explicit PendingOp(const vc_op* op) : op_(op), key_(OpKey::of(op)) {}
  PendingOp(const PendingOp&) = delete;
  PendingOp& operator=(const PendingOp&) = delete;

  // [any-thread] The host's id of the op; 0 under a 1.0 host.
  std::uint64_t id() const { return key_.id; }

  // [any-thread] True once the host asked to cancel the op, or the instance is closing.
  bool cancel_requested() const { return cancel_requested_.load(std::memory_order_acquire); }

  // [any-thread] Sets what a cancel does for this op right now (withdraw it from a queue, kill
  // the running command, abort an engine call...), replacing the previous hook; nullptr for
  // nothing. When the op was cancelled already, the hook runs at once on this thread; when it
  // has completed already (its work may finish before the hook is set), the hook is dropped.
  // Hooks must be idempotent (a cancel and this call may both run one) and must not block.
  void on_cancel(std::function<void()> hook) {
    bool run_now = false;
    std::function<void()> replaced;  // released outside the lock: it may own the last references
    {
      std::lock_guard lock(mutex_);
      if (finished_) {
        replaced = std::move(hook);  // a hook usually owns its op: keeping it would be a cycle
        return;
      }
      replaced = std::exchange(hook_, hook);
      // The flag is set under the same lock, so either cancel() sees this hook or this call
      // sees the flag: a cancel can never fall between the two.
      run_now = cancel_requested_.load(std::memory_order_acquire);
    }
    if (run_now && hook) hook();
  }

 private:
  friend class OpRegistry;

  void flag_cancelled() {
    std::lock_guard lock(mutex_);
    cancel_requested_.store(true, std::memory_order_release);
  }
  std::function<void()> current_hook() {
    std::lock_guard lock(mutex_);
    return hook_;
  }
  // The op completed, was forgotten or its instance closed: no hook is kept from now on.
  std::function<void()> finish() {
    std::lock_guard lock(mutex_);
    finished_ = true;
    return std::exchange(hook_, nullptr);
  }

  const vc_op* const op_;
  const OpKey key_;
  std::atomic<bool> cancel_requested_{false};
  std::mutex mutex_;
  std::function<void()> hook_;  // guarded by mutex_
  bool finished_ = false;       // guarded by mutex_
};

class OpRegistry {
 public:
  // Runs one cancel hook somewhere; must not block.
  using Dispatch = std::function<void(std::function<void()> run_hook)>;

  // What close() does with ops that are still pending.
  enum class PendingWork {
    cancel,  // run their cancel hooks now, on the closing thread, then drop the hooks
    leave,   // only flag them: the caller stops whatever runs them (e.g. joins its event loop)
  };

  // Cancel hooks run on the thread that calls cancel() (the host's loop thread).
  OpRegistry() = default;
  // Cancel hooks run where `dispatch` sends them.
  explicit OpRegistry(Dispatch dispatch) : dispatch_(std::move(dispatch)) {}
  OpRegistry(const OpRegistry&) = delete;
  OpRegistry& operator=(const OpRegistry&) = delete;

  // [loop-thread] Registers an op the caller is about to accept (return VC_OK for).
  std::shared_ptr<PendingOp> accept(const vc_op* op) {
    auto pending = std::make_shared<PendingOp>(op);
    std::lock_guard lock(mutex_);
    live_[pending->key_] = pending;
    return pending;
  }

  // [loop-thread] Undoes accept() for an op that ends up rejected after all (its work could not
  // be handed on); complete() is then never called for it.
  void forget(const std::shared_ptr<PendingOp>& pending) {
    {
      std::lock_guard lock(mutex_);
      auto it = live_.find(pending->key_);
      if (it != live_.end() && it->second == pending) live_.erase(it);
    }
    pending->finish();
  }

  // [any-thread] Completes the op unless somebody did; returns whether this call did. After
  // close() nothing reaches the host any more and this returns false.
  bool complete(const std::shared_ptr<PendingOp>& pending, const OpResult& result) {
    {
      std::lock_guard lock(mutex_);
      auto it = live_.find(pending->key_);
      if (it == live_.end() || it->second != pending) return false;
      live_.erase(it);
    }
    // Hooks usually capture whatever owns the op; dropping the hook breaks that cycle.
    pending->finish();
    if (closed_.load(std::memory_order_acquire)) return false;
    complete_op(pending->op_, result);
    return true;
  }

  // [loop-thread] Accepts `op` and completes it before returning, for answers that need no
  // I/O. Returns VC_OK, the status the op function returns.
  vc_status complete_now(const vc_op* op, const OpResult& result) {
    complete(accept(op), result);
    return VC_OK;
  }

  // [any-thread] Streams bytes of a live op (see vc_op.emit for the answers). Call it only from
  // the thread that will complete the op, so that every emit happens-before the completion.
  // After close() answers VC_NOTE_TRUNCATED: stop producing, nobody listens.
  vc_status emit(const std::shared_ptr<PendingOp>& pending, vc_stream stream, const void* data,
                 size_t len) const {
    if (closed_.load(std::memory_order_acquire)) return VC_NOTE_TRUNCATED;
    const vc_op* op = pending->op_;
    return op->emit(op, stream, static_cast<const uint8_t*>(data), len);
  }

  // [worker] emit(), retried every `retry` while the host answers VC_E_BACKPRESSURE (its buffer
  // is full; the bytes were not taken), so the answer is never VC_E_BACKPRESSURE. Blocks: only
  // for plugin threads that may wait. Same caller rule as emit().
  vc_status emit_waiting(const std::shared_ptr<PendingOp>& pending, vc_stream stream,
                         const void* data, size_t len,
                         std::chrono::milliseconds retry = std::chrono::milliseconds(10)) const {
    vc_status status = VC_OK;
    while ((status = emit(pending, stream, data, len)) == VC_E_BACKPRESSURE) {
      std::this_thread::sleep_for(retry);
    }
    return status;
  }

  // [any-thread] True when the host flagged the op as cancelled (vc_op.is_cancelled), for loops
  // that poll rather than wait for a hook; also true after close(). Same caller rule as emit().
  bool host_cancelled(const std::shared_ptr<PendingOp>& pending) const {
    if (closed_.load(std::memory_order_acquire)) return true;
    const vc_op* op = pending->op_;
    return op->is_cancelled != nullptr && op->is_cancelled(op) != 0;
  }

  // [loop-thread] ops->cancel(): flags the op and runs its current hook. An op that already
  // completed (or is unknown) is ignored.
  void cancel(const vc_op* op) { cancel_key(OpKey::of(op)); }

  // [any-thread] cancel() for the op the host gave `id` (nonzero; ABI 1.1), for a cancel that
  // reaches the plugin after the vc_op itself may be gone (a queued request, an engine event).
  // Hooks run as for cancel(): here, or where the dispatcher sends them.
  void cancel_id(std::uint64_t id) {
    if (id != 0) cancel_key(OpKey{id, nullptr});
  }

 private:
  void cancel_key(const OpKey& key) {
    std::shared_ptr<PendingOp> pending;
    {
      std::lock_guard lock(mutex_);
      auto it = live_.find(key);
      if (it == live_.end()) return;
      pending = it->second;
    }
    pending->flag_cancelled();
    // The hook is read when it runs, not now: a dispatched hook sees what the op's work set
    // up by then (the hook may also replace or clear itself).
    auto run_hook = [pending] {
      if (auto hook = pending->current_hook()) hook();
    };
    if (dispatch_) {
      dispatch_(std::move(run_hook));
    } else {
      run_hook();
    }
  }

 public:
  // [loop-thread] destroy(): from now on nothing reaches the host (complete() and emit() become
  // no-ops) and every live op counts as cancelled; see PendingWork for its hooks.
  void close(PendingWork work) {
    std::vector<std::shared_ptr<PendingOp>> pending;
    {
      std::lock_guard lock(mutex_);
      closed_.store(true, std::memory_order_release);
      for (auto& [op, entry] : live_) pending.push_back(entry);
      live_.clear();
    }
    for (auto& entry : pending) entry->flag_cancelled();
    if (work == PendingWork::leave) return;
    for (auto& entry : pending) {
      if (auto hook = entry->current_hook()) hook();
    }
    for (auto& entry : pending) entry->finish();
  }

 private:
  Dispatch dispatch_;
  mutable std::mutex mutex_;
  std::unordered_map<OpKey, std::shared_ptr<PendingOp>, OpKeyHash> live_;
  std::atomic<bool> closed_{false};
};

}  // namespace vc::sdk
