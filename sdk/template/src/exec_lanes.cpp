// exec_lanes.cpp — per-computer serial execution on plugin-owned threads.
#include "exec_lanes.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace vc_template {

ExecLanes::~ExecLanes() { stop_and_join(); }

void ExecLanes::enqueue(std::shared_ptr<Job> job) {
  join_finished();
  std::lock_guard lock(mutex_);
  if (stopping_) return;
  const std::string lane = job->lane();
  auto [queue, idle] = queues_.try_emplace(lane);
  queue->second.push_back(std::move(job));
  if (!idle) return;  // the lane's worker will get to it
  auto worker = std::make_unique<Worker>();
  Worker* self = worker.get();
  // Started under the lock, so drain() cannot look at `self` before it is fully set up.
  worker->thread = std::thread([this, lane, self] { drain(lane, self); });
  workers_.push_back(std::move(worker));
}

bool ExecLanes::withdraw(const std::shared_ptr<Job>& job) {
  std::lock_guard lock(mutex_);
  auto queue = queues_.find(job->lane());
  if (queue == queues_.end()) return false;
  auto& jobs = queue->second;
  auto it = std::find(jobs.begin(), jobs.end(), job);
  if (it == jobs.end()) return false;
  jobs.erase(it);
  return true;
}

void ExecLanes::drain(const std::string& lane, Worker* self) {
  std::unique_lock lock(mutex_);
  for (;;) {
    auto queue = queues_.find(lane);
    if (stopping_ || queue == queues_.end() || queue->second.empty()) {
      // An empty lane is removed, so the next exec for this computer starts a new worker.
      if (queue != queues_.end() && queue->second.empty()) queues_.erase(queue);
      self->finished = true;
      return;
    }
    auto job = std::move(queue->second.front());
    queue->second.pop_front();
    lock.unlock();
    job->run();
    job.reset();
    lock.lock();
  }
}

void ExecLanes::join_finished() {
  std::vector<std::unique_ptr<Worker>> finished;
  {
    std::lock_guard lock(mutex_);
    auto split = std::stable_partition(workers_.begin(), workers_.end(),
                                       [](const auto& worker) { return !worker->finished; });
    std::move(split, workers_.end(), std::back_inserter(finished));
    workers_.erase(split, workers_.end());
  }
  // A finished worker has returned from drain() or is about to; joining it is immediate.
  for (auto& worker : finished) worker->thread.join();
}

void ExecLanes::stop_and_join() {
  std::vector<std::unique_ptr<Worker>> all;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queues_.clear();
    all.swap(workers_);
  }
  for (auto& worker : all) {
    if (worker->thread.joinable()) worker->thread.join();
  }
}

}  // namespace vc_template
