// container_records.cpp — per-computer lanes and the expected-stop bookkeeping.
#include "container_records.h"

#include <algorithm>

#include <vc_agent_channel/exec_agent_channel.h>

namespace vc::container {

std::uint64_t SerialLane::enqueue(Job job) {
  std::uint64_t ticket = next_ticket_++;
  queue_.emplace_back(ticket, std::move(job));
  if (!running_) start_next();
  return ticket;
}

bool SerialLane::withdraw(std::uint64_t ticket) {
  auto it = std::find_if(queue_.begin(), queue_.end(),
                         [ticket](const auto& entry) { return entry.first == ticket; });
  if (it == queue_.end()) return false;
  queue_.erase(it);
  return true;
}

void SerialLane::start_next() {
  if (queue_.empty()) {
    running_ = false;
    return;
  }
  running_ = true;
  Job job = std::move(queue_.front().second);
  queue_.pop_front();
  std::uint64_t this_job = ++running_job_;
  // `done` may be called inside job() itself; starting the next job on a later loop turn keeps
  // the stack flat and the order of callbacks easy to reason about. A job holds the record
  // that owns this lane while it runs, so `this` is alive when `done` is called; the posted
  // start may run after the record went away, hence the token.
  job([this, this_job] {
    if (running_job_ != this_job) return;  // a second done() of the same job
    ++running_job_;
    std::weak_ptr<char> alive = alive_;
    if (!loop_.post([this, alive] {
          if (alive.lock()) start_next();
        })) {
      running_ = false;
    }
  });
}

ComputerRecord::ExpectedStop::ExpectedStop(std::shared_ptr<ComputerRecord> record)
    : record_(std::move(record)) {
  ++record_->stop_generation_;
  ++record_->stops_in_progress_;
}

ComputerRecord::ExpectedStop::~ExpectedStop() {
  if (--record_->stops_in_progress_ > 0) return;
  auto waiters = std::move(record_->settled_waiters_);
  record_->settled_waiters_.clear();
  for (auto& waiter : waiters) waiter();
}

std::shared_ptr<ComputerRecord::ExpectedStop> ComputerRecord::expect_stop() {
  // The agent's line leads into the container about to stop (or be deleted). Its end would come
  // on a later turn, after the flow's next command (the readiness check of the restarted or new
  // container) could already have gone down the dead line; closed now, that command opens a
  // fresh agent in whatever container then runs.
  if (exec_agent) exec_agent->reset("the computer is being stopped, restarted or replaced", false);
  return std::make_shared<ExpectedStop>(shared_from_this());
}

void ComputerRecord::when_settled(std::function<void()> callback) {
  if (stops_in_progress_ == 0) {
    callback();
    return;
  }
  settled_waiters_.push_back(std::move(callback));
}

void ComputerRecord::mark_created() {
  removed_on_purpose_ = false;
  auto waiters = std::move(recreated_waiters_);
  recreated_waiters_.clear();
  for (auto& waiter : waiters) waiter();
}

void ComputerRecord::when_recreated(std::function<void()> callback) {
  recreated_waiters_.push_back(std::move(callback));
}

const std::shared_ptr<ComputerRecord>& ContainerRecords::record(const std::string& computer_id) {
  auto it = records_.find(computer_id);
  if (it == records_.end()) {
    it = records_.emplace(computer_id, std::make_shared<ComputerRecord>(loop_, computer_id)).first;
  }
  return it->second;
}

std::optional<bool> ContainerRecords::desktop_enabled_of(const std::string& computer_id) const {
  auto it = records_.find(computer_id);
  return it == records_.end() ? std::nullopt : it->second->desktop_enabled;
}

void ContainerRecords::clear() {
  for (auto& [id, record] : records_) {
    record->execs.clear();
    record->lifecycle.clear();
  }
  records_.clear();
}

}  // namespace vc::container
