// exec_watchdog.cpp — see exec_watchdog.h.
#include "computers/exec_watchdog.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <utility>

#include "common/uv_handles.h"

namespace vc::computers {
namespace {

// The execs of one computer of one backend instance the host is waiting for, in call order:
// the backend runs the first and holds the others back.
using ComputerQueues = std::map<std::pair<const void*, std::string>, std::deque<ExecWatchdog*>>;

// [loop-thread] Never destroyed, so a watchdog released while the process exits still finds it.
ComputerQueues& computer_queues() {
  static auto* queues = new ComputerQueues();
  return *queues;
}

uint64_t saturating_sum(std::chrono::milliseconds a, std::chrono::milliseconds b) {
  const auto positive = [](std::chrono::milliseconds value) {
    return static_cast<uint64_t>(std::max<std::chrono::milliseconds::rep>(value.count(), 0));
  };
  const uint64_t first = positive(a);
  const uint64_t second = positive(b);
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  return first > max - second ? max : first + second;
}

}  // namespace

std::unique_ptr<ExecWatchdog> ExecWatchdog::start(uv_loop_t* loop, const void* backend,
                                                  std::string computer_id,
                                                  std::chrono::milliseconds timeout,
                                                  std::chrono::milliseconds grace,
                                                  std::function<void()> expired) {
  std::unique_ptr<ExecWatchdog> watchdog(new ExecWatchdog(
      backend, std::move(computer_id), saturating_sum(timeout, grace), std::move(expired)));
  watchdog->timer_ = new uv_timer_t;
  uv_timer_init(loop, watchdog->timer_);
  uv_unref(reinterpret_cast<uv_handle_t*>(watchdog->timer_));
  watchdog->timer_->data = watchdog.get();
  watchdog->join_queue();
  return watchdog;
}

ExecWatchdog::ExecWatchdog(const void* backend, std::string computer_id, uint64_t allowance_ms,
                           std::function<void()> expired)
    : backend_(backend),
      computer_id_(std::move(computer_id)),
      allowance_ms_(allowance_ms),
      expired_(std::move(expired)) {}

ExecWatchdog::~ExecWatchdog() {
  leave_queue();
  if (timer_ != nullptr) close_and_delete(std::exchange(timer_, nullptr));
}

void ExecWatchdog::join_queue() {
  std::deque<ExecWatchdog*>& queue = computer_queues()[{backend_, computer_id_}];
  queue.push_back(this);
  queued_ = true;
  if (queue.front() == this) start_clock();
}

void ExecWatchdog::leave_queue() {
  if (!queued_) return;
  queued_ = false;
  ComputerQueues& queues = computer_queues();
  auto found = queues.find({backend_, computer_id_});
  if (found == queues.end()) return;
  std::deque<ExecWatchdog*>& queue = found->second;
  const bool was_running = !queue.empty() && queue.front() == this;
  queue.erase(std::remove(queue.begin(), queue.end(), this), queue.end());
  if (queue.empty()) {
    queues.erase(found);
  } else if (was_running) {
    queue.front()->start_clock();
  }
}

void ExecWatchdog::start_clock() {
  uv_timer_start(timer_, &ExecWatchdog::on_deadline, allowance_ms_, 0);
}

void ExecWatchdog::on_deadline(uv_timer_t* timer) {
  auto* watchdog = static_cast<ExecWatchdog*>(timer->data);
  watchdog->leave_queue();
  std::function<void()> expired = std::move(watchdog->expired_);
  watchdog->expired_ = nullptr;
  // May destroy the watchdog: nothing of it is used afterwards.
  if (expired) expired();
}

}  // namespace vc::computers
