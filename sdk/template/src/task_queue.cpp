// task_queue.cpp — the worker loop of TaskQueue.
#include "task_queue.h"

#include <utility>

namespace vc_template {

TaskQueue::TaskQueue() : worker_([this] { run(); }) {}

TaskQueue::~TaskQueue() { stop_and_join(); }

void TaskQueue::post(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void TaskQueue::stop_and_join() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    tasks_.clear();
  }
  wake_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void TaskQueue::run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
    if (stopping_) return;
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

}  // namespace vc_template
