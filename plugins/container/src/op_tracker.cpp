// op_tracker.cpp — exactly-once completion and cancellation routing.
#include "op_tracker.h"

#include <string>
#include <utility>

namespace vc::container {

void PendingOp::on_cancel(std::function<void()> hook) {
  cancel_hook_ = std::move(hook);
  if (cancel_requested() && cancel_hook_) {
    auto run = cancel_hook_;  // the hook may replace itself
    run();
  }
}

std::shared_ptr<PendingOp> OpTracker::accept(const vc_op* op) {
  auto pending = std::make_shared<PendingOp>(op);
  std::lock_guard lock(mutex_);
  live_[op] = pending;
  return pending;
}

void OpTracker::forget(const std::shared_ptr<PendingOp>& pending) {
  std::lock_guard lock(mutex_);
  auto it = live_.find(pending->op_);
  if (it != live_.end() && it->second == pending) live_.erase(it);
}

bool OpTracker::complete(const std::shared_ptr<PendingOp>& pending, const OpOutcome& outcome) {
  {
    std::lock_guard lock(mutex_);
    // Compare the state, not just the pointer: once an op completed, the host may reuse its
    // address for a new op, which a stale holder of the old one must not finish.
    auto it = live_.find(pending->op_);
    if (it == live_.end() || it->second != pending) return false;
    live_.erase(it);
  }
  // Hooks usually capture the flow that owns this op; dropping the hook breaks that cycle.
  pending->cancel_hook_ = nullptr;
  if (closed_.load(std::memory_order_acquire)) return false;
  std::string json;
  if (outcome.status >= 0 || !outcome.document.is_null()) {
    json = outcome.document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  const vc_op* op = pending->op_;
  op->complete(op, outcome.status, json.empty() ? nullptr : json.data(), json.size(),
               outcome.message.empty() ? nullptr : outcome.message.data(),
               outcome.message.size());
  return true;
}

vc_status OpTracker::emit(const std::shared_ptr<PendingOp>& pending, vc_stream stream,
                          const void* data, std::size_t len) {
  if (closed_.load(std::memory_order_acquire)) return VC_NOTE_TRUNCATED;  // nobody listens
  const vc_op* op = pending->op_;
  return op->emit(op, stream, static_cast<const uint8_t*>(data), len);
}

void OpTracker::cancel(const vc_op* op) {
  std::shared_ptr<PendingOp> pending;
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(op);
    if (it == live_.end()) return;  // already completed: nothing to do
    pending = it->second;
  }
  pending->cancel_requested_.store(true, std::memory_order_release);
  loop_.post([pending] {
    if (pending->cancel_hook_) {
      auto run = pending->cancel_hook_;  // the hook may replace or clear itself
      run();
    }
  });
}

void OpTracker::close() {
  std::lock_guard lock(mutex_);
  closed_.store(true, std::memory_order_release);
  for (auto& [op, pending] : live_) pending->cancel_requested_.store(true, std::memory_order_release);
  live_.clear();
}

}  // namespace vc::container
