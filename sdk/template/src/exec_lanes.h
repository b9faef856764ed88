// exec_lanes.h — one lane per computer: its execs run one at a time, in call order, while
// different computers' execs run in parallel.
//
// A lane owns a plugin thread only while it has work: the first exec for an idle computer
// starts a thread, which runs that computer's queued execs back to back and ends when the
// queue is empty. All threads are joined by stop_and_join().
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vc_template {

class ExecLanes {
 public:
  // One queued exec; the backend derives from it to carry the request.
  struct Job {
    virtual ~Job() = default;
    virtual const std::string& lane() const = 0;
    virtual void run() = 0;  // [worker] runs the command and completes the op
  };

  ExecLanes() = default;
  ~ExecLanes();
  ExecLanes(const ExecLanes&) = delete;
  ExecLanes& operator=(const ExecLanes&) = delete;

  // [loop-thread] Queues `job` behind the other jobs of its lane.
  void enqueue(std::shared_ptr<Job> job);

  // [any-thread] Removes a job that has not started; false when it started (or is unknown).
  bool withdraw(const std::shared_ptr<Job>& job);

  // [loop-thread] Drops queued jobs and joins every lane thread. Running jobs must have been
  // told to stop first (they are cancelled through the op registry).
  void stop_and_join();

 private:
  struct Worker {
    std::thread thread;
    bool finished = false;  // guarded by mutex_
  };

  void drain(const std::string& lane, Worker* self);
  void join_finished();  // with mutex_ NOT held

  std::mutex mutex_;
  std::map<std::string, std::deque<std::shared_ptr<Job>>> queues_;  // lanes with a live worker
  std::vector<std::unique_ptr<Worker>> workers_;
  bool stopping_ = false;
};

}  // namespace vc_template
