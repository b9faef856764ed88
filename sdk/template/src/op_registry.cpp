// op_registry.cpp — exactly-once completion and cancellation of accepted ops.
#include "op_registry.h"

#include <utility>
#include <vector>

namespace vc_template {

OpResult OpResult::ok(nlohmann::json document) {
  return OpResult{VC_OK, std::move(document), {}};
}

OpResult OpResult::error(vc_status status, std::string message, nlohmann::json details) {
  return OpResult{status, std::move(details), std::move(message)};
}

std::shared_ptr<OpState> OpRegistry::accept(const vc_op* op) {
  auto state = std::make_shared<OpState>(op);
  std::lock_guard lock(mutex_);
  live_[op] = state;
  return state;
}

void OpRegistry::forget(const std::shared_ptr<OpState>& state) {
  std::function<void()> hook;
  std::lock_guard lock(mutex_);
  auto it = live_.find(state->op_);
  if (it != live_.end() && it->second == state) live_.erase(it);
  hook.swap(state->cancel_hook_);
}

bool OpRegistry::complete(const std::shared_ptr<OpState>& state, const OpResult& result) {
  std::function<void()> hook;  // released outside the lock: it may own the last references
  {
    std::lock_guard lock(mutex_);
    // Compare the state, not just the pointer: once an op completed, the host may reuse its
    // address for a new op, which must not be finished by a stale holder of the old one.
    auto it = live_.find(state->op_);
    if (it == live_.end() || it->second != state) return false;
    live_.erase(it);
    // Hooks usually capture their op's state; dropping the hook breaks that cycle.
    hook.swap(state->cancel_hook_);
    if (closed_.load()) return false;
  }
  // Serialised outside the lock; the host copies both buffers during the call.
  std::string json;
  if (result.status >= 0 || !result.document.is_null()) {
    json = result.document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  const vc_op* op = state->op_;
  op->complete(op, result.status, json.empty() ? nullptr : json.data(), json.size(),
               result.message.empty() ? nullptr : result.message.data(), result.message.size());
  return true;
}

vc_status OpRegistry::emit(const std::shared_ptr<OpState>& state, vc_stream stream,
                           const void* data, size_t len) {
  if (closed_.load()) return VC_NOTE_TRUNCATED;  // stop producing: nobody listens any more
  const vc_op* op = state->op_;
  return op->emit(op, stream, static_cast<const uint8_t*>(data), len);
}

bool OpRegistry::host_cancelled(const std::shared_ptr<OpState>& state) {
  if (closed_.load()) return true;
  const vc_op* op = state->op_;
  return op->is_cancelled != nullptr && op->is_cancelled(op) != 0;
}

void OpRegistry::on_cancel(const std::shared_ptr<OpState>& state, std::function<void()> hook) {
  bool run_now = false;
  {
    std::lock_guard lock(mutex_);
    state->cancel_hook_ = hook;
    // The flag is set under the same mutex by cancel(), so either cancel() sees this hook or
    // this call sees the flag: a cancel can never fall between the two.
    run_now = state->cancel_requested_.load();
  }
  if (run_now && hook) hook();
}

void OpRegistry::cancel(const vc_op* op) {
  std::function<void()> hook;
  {
    std::lock_guard lock(mutex_);
    auto it = live_.find(op);
    if (it == live_.end()) return;  // already completed: cancel is a no-op
    it->second->cancel_requested_.store(true, std::memory_order_release);
    hook = it->second->cancel_hook_;
  }
  // Outside the lock: a hook may complete the op, which takes the lock again.
  if (hook) hook();
}

void OpRegistry::close() {
  std::vector<std::shared_ptr<OpState>> states;
  std::vector<std::function<void()>> hooks;
  {
    std::lock_guard lock(mutex_);
    closed_.store(true);
    for (auto& [op, state] : live_) {
      state->cancel_requested_.store(true, std::memory_order_release);
      if (state->cancel_hook_) hooks.push_back(state->cancel_hook_);
      states.push_back(state);
    }
  }
  for (auto& hook : hooks) hook();
  // Ops that never completed (possible only if the host destroys with ops pending) still
  // hold their hooks; release them so nothing stays alive in a cycle.
  std::lock_guard lock(mutex_);
  for (auto& state : states) state->cancel_hook_ = nullptr;
  live_.clear();
}

}  // namespace vc_template
