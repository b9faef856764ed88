// work_lanes.h — plugin threads for blocking work: tasks of one lane run one at a time in post
// order, different lanes in parallel.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). Op functions
// run on the host's loop thread and must not block, not even for a mkdir; a backend whose work
// blocks (files, processes, a synchronous engine library) posts it here, one lane per computer
// ("execs of one computer run one at a time, in call order; different computers in parallel").
// A lane owns a thread only while it has work: the first task of an idle lane starts one, which
// ends when the lane is empty. stop_and_join() (or the destructor) joins them all.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace vc::sdk {

class WorkLanes {
 public:
  using Ticket = std::uint64_t;  // names one posted task; never 0

  WorkLanes() = default;
  ~WorkLanes() { stop_and_join(); }
  WorkLanes(const WorkLanes&) = delete;
  WorkLanes& operator=(const WorkLanes&) = delete;

  // [any-thread] Queues `task` behind the other tasks of `lane`. Returns its ticket, or 0 when
  // stop_and_join() has begun (the task is dropped).
  Ticket post(const std::string& lane, std::function<void()> task) {
    join_finished();
    std::lock_guard lock(mutex_);
    if (stopping_) return 0;
    const Ticket ticket = ++last_ticket_;
    auto [queue, idle] = queues_.try_emplace(lane);
    queue->second.emplace_back(ticket, std::move(task));
    if (!idle) return ticket;  // the lane's thread will get to it
    auto worker = std::make_unique<Worker>();
    Worker* self = worker.get();
    // Started under the lock, so drain() cannot look at `self` before it is set up.
    worker->thread = std::thread([this, lane, self] { drain(lane, self); });
    workers_.push_back(std::move(worker));
    return ticket;
  }

  // [any-thread] Removes a task that has not started; false when it started (or ended, or
  // `ticket` is not of `lane`).
  bool withdraw(const std::string& lane, Ticket ticket) {
    std::function<void()> dropped;  // destroyed outside the lock: it may own the last references
    std::lock_guard lock(mutex_);
    auto queue = queues_.find(lane);
    if (queue == queues_.end()) return false;
    auto& tasks = queue->second;
    auto it = std::find_if(tasks.begin(), tasks.end(),
                           [ticket](const auto& queued) { return queued.first == ticket; });
    if (it == tasks.end()) return false;
    dropped = std::move(it->second);
    tasks.erase(it);
    return true;
  }

  // [loop-thread] Drops the queued tasks, waits for the running ones and joins every thread.
  // Tell running tasks to stop first (cancel their ops); no task may be posted afterwards.
  void stop_and_join() {
    std::vector<std::unique_ptr<Worker>> all;
    std::map<std::string, std::deque<Queued>> dropped;
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
      dropped.swap(queues_);
      all.swap(workers_);
    }
    for (auto& worker : all) {
      if (worker->thread.joinable()) worker->thread.join();
    }
  }

 private:
  using Queued = std::pair<Ticket, std::function<void()>>;
  struct Worker {
    std::thread thread;
    bool finished = false;  // guarded by mutex_
  };

  void drain(const std::string& lane, Worker* self) {
    std::unique_lock lock(mutex_);
    for (;;) {
      auto queue = queues_.find(lane);
      if (stopping_ || queue == queues_.end() || queue->second.empty()) {
        // An empty lane is removed, so the lane's next task starts a new thread.
        if (queue != queues_.end() && queue->second.empty()) queues_.erase(queue);
        self->finished = true;
        return;
      }
      std::function<void()> task = std::move(queue->second.front().second);
      queue->second.pop_front();
      lock.unlock();
      task();
      task = nullptr;  // released before the lock is taken again
      lock.lock();
    }
  }

  // A finished worker has returned from drain() or is about to; joining it is immediate.
  void join_finished() {
    std::vector<std::unique_ptr<Worker>> finished;
    {
      std::lock_guard lock(mutex_);
      auto split = std::stable_partition(workers_.begin(), workers_.end(),
                                         [](const auto& worker) { return !worker->finished; });
      std::move(split, workers_.end(), std::back_inserter(finished));
      workers_.erase(split, workers_.end());
    }
    for (auto& worker : finished) worker->thread.join();
  }

  std::mutex mutex_;
  std::map<std::string, std::deque<Queued>> queues_;  // the lanes that have a thread
  std::vector<std::unique_ptr<Worker>> workers_;
  Ticket last_ticket_ = 0;
  bool stopping_ = false;
};

}  // namespace vc::sdk
