// task_queue.h — one plugin-owned worker thread running short jobs in the order posted.
//
// Op functions are called on the host's event-loop thread and must not block it, not even for
// a mkdir. The template therefore hands every piece of file-system work to this queue. One
// thread keeps the jobs of all computers in call order, which is all the template needs;
// an engine backend would rather have non-blocking I/O or a small pool.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace vc_template {

class TaskQueue {
 public:
  TaskQueue();
  ~TaskQueue();
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  // [any-thread] Runs `task` on the worker after every task posted before it.
  void post(std::function<void()> task);

  // [loop-thread] Lets the running task finish, drops the queued ones, joins the worker.
  void stop_and_join();

 private:
  void run();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace vc_template
