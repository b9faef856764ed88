// fake_pod_port.h — a PodPortStream without a cluster, for the desktop view proxy's unit tests:
// a program in a pod that reads what the browser sends (or echoes it back) and sends what the
// test gives it, with PortForwardStream's contract: a bounded write queue that refuses whole
// (`full`) and says on_drained, pausing, close() after the queue, cancel() at once, every
// callback on the loop thread and on_close exactly once, last.
//
// Its "program" runs in steps posted to the loop: each step reads what was written, or a part
// of it, unless told not to read, and delivers one message of what it sends, unless paused.
// Echoing, it stops reading while its echo waits to go back, as a real pod's program would once
// TCP's window is full.
//
// Thread rule: everything on the ApiLoop's thread: the proxy calls it there, and a test reaches
// it with on_loop() (fake_pod_port_test_support below). It checks that it is called there.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "desktop_view_proxy.h"

namespace vc::kubernetes::testing {

struct FakePodPortConfig {
  std::size_t max_queued_bytes = 256 * 1024;  // the write queue's bound
  std::size_t message_bytes = 32 * 1024;      // on_data delivers at most this much at a time
  bool reads = true;                          // false: what is written stays queued
  std::size_t read_bytes_per_step = 0;        // 0: a step reads all that is queued
  bool echo = false;                          // what is read is sent back
  std::size_t echo_backlog = 512 * 1024;      // echoing reads only while less waits to go back
};

class FakePodPort : public PodPortStream, public std::enable_shared_from_this<FakePodPort> {
 public:
  FakePodPort(ApiLoop& loop, std::string pod_name, FakePodPortConfig config,
              PortForwardCallbacks callbacks)
      : pod(std::move(pod_name)), loop_(loop), config_(config), callbacks_(std::move(callbacks)) {}

  // --- PodPortStream, as the proxy calls it ---

  WriteAdmission write(std::string bytes) override {
    check_thread();
    if (ended || closing) return WriteAdmission::ended;
    if (bytes.size() > config_.max_queued_bytes) return WriteAdmission::too_big;
    if (queued_.size() + bytes.size() > config_.max_queued_bytes) {
      refused_ = true;
      ++full_answers;
      return WriteAdmission::full;
    }
    queued_ += bytes;
    max_queued_seen = std::max(max_queued_seen, queued_.size());
    schedule();
    return WriteAdmission::queued;
  }
  void close() override {
    check_thread();
    ++closes;
    closing = true;
    schedule();
  }
  void cancel() override {
    check_thread();
    ++cancels;
    loop_.post([self = shared_from_this()] {
      self->end(ApiError{ApiErrorKind::cancelled, 0, "", "The fake stream was cancelled."});
    });
  }
  void pause_receiving() override {
    check_thread();
    ++pauses;
    paused_ = true;
  }
  void resume_receiving() override {
    check_thread();
    ++resumes;
    paused_ = false;
    schedule();
  }

  // --- the pod's program, for the test (on the loop thread) ---

  // Sends `bytes` to the browser, in messages, as the proxy lets it.
  void send(const std::string& bytes) {
    check_thread();
    to_send_ += bytes;
    sent_total += bytes.size();
    schedule();
  }
  // Ends the stream with `result` once everything given to send() has been delivered.
  void end_after_sending(ApiExpected<void> result) {
    check_thread();
    end_result_.emplace(std::move(result));
    schedule();
  }
  // Sends `bytes` as a stream that ignores pause_receiving() would.
  void send_ignoring_pause(const std::string& bytes) {
    ignores_pause_ = true;
    send(bytes);
  }
  void set_reads(bool reads) {
    check_thread();
    config_.reads = reads;
    schedule();
  }
  std::size_t waiting_to_be_sent() const { return to_send_.size(); }

  // What the test looks at (on the loop thread).
  const std::string pod;
  std::string received;          // what the program read
  std::size_t sent_total = 0;    // given to send(), echoes included
  std::size_t delivered = 0;     // passed to on_data
  std::size_t max_queued_seen = 0;
  int full_answers = 0;
  int drained_calls = 0;
  int pauses = 0;
  int resumes = 0;
  int closes = 0;
  int cancels = 0;
  bool closing = false;
  bool ended = false;
  std::optional<ApiExpected<void>> how_it_ended;

 private:
  void check_thread() const { EXPECT_TRUE(loop_.on_loop_thread()) << "called off the loop"; }

  void schedule() {
    if (step_posted_ || ended) return;
    step_posted_ = true;
    loop_.post([self = shared_from_this()] {
      self->step_posted_ = false;
      self->step();
    });
  }

  // One step of the program: read, deliver one message, end when told; again while it can.
  void step() {
    if (ended) return;
    bool progressed = false;
    const bool echo_has_room = !config_.echo || to_send_.size() < config_.echo_backlog;
    if (config_.reads && echo_has_room && !queued_.empty()) {
      const std::size_t size = config_.read_bytes_per_step == 0
                                   ? queued_.size()
                                   : std::min(config_.read_bytes_per_step, queued_.size());
      if (config_.echo) {
        to_send_.append(queued_, 0, size);
        sent_total += size;
      }
      received.append(queued_, 0, size);
      queued_.erase(0, size);
      progressed = true;
      // As ApiWebSocket: a refused writer hears once the queue is empty.
      if (refused_ && queued_.empty()) {
        refused_ = false;
        ++drained_calls;
        if (callbacks_.on_drained) callbacks_.on_drained();
        if (ended) return;
      }
    }
    if ((!paused_ || ignores_pause_) && !to_send_.empty()) {
      const std::size_t size = std::min(config_.message_bytes, to_send_.size());
      const std::string message = to_send_.substr(0, size);
      to_send_.erase(0, size);
      delivered += size;
      progressed = true;
      if (callbacks_.on_data) callbacks_.on_data(message);
      if (ended) return;
    }
    if (closing && queued_.empty()) return end(ApiExpected<void>());
    if (end_result_ && to_send_.empty()) return end(*end_result_);
    if (progressed) schedule();
  }

  void end(ApiExpected<void> result) {
    if (ended) return;
    ended = true;
    how_it_ended = result;
    auto on_close = std::move(callbacks_.on_close);
    callbacks_ = {};
    if (on_close) on_close(std::move(result));
  }

  ApiLoop& loop_;
  FakePodPortConfig config_;
  PortForwardCallbacks callbacks_;
  std::string queued_;   // written, not read yet
  std::string to_send_;  // to be delivered
  bool refused_ = false;
  bool paused_ = false;
  bool ignores_pause_ = false;
  bool step_posted_ = false;
  std::optional<ApiExpected<void>> end_result_;
};

// Runs `task` on the loop thread and returns its result, for a test's thread.
template <class Task>
auto on_loop(ApiLoop& loop, Task task) -> decltype(task()) {
  std::packaged_task<decltype(task())()> packaged(std::move(task));
  auto result = packaged.get_future();
  loop.post([&packaged] { packaged(); });
  return result.get();
}

// The opener of fakes, and every fake it opened (on the loop thread).
class FakePodPorts {
 public:
  FakePodPorts(ApiLoop& loop, FakePodPortConfig config) : loop_(loop), config_(config) {}

  PodPortOpener opener() {
    return [this](const std::string& pod,
                  PortForwardCallbacks callbacks) -> std::shared_ptr<PodPortStream> {
      auto fake = std::make_shared<FakePodPort>(loop_, pod, config_, std::move(callbacks));
      opened.push_back(fake);
      return fake;
    };
  }

  // [test thread] How many were opened so far.
  std::size_t count() {
    return on_loop(loop_, [this] { return opened.size(); });
  }
  // [test thread] Runs `task` with the n-th fake on the loop thread.
  template <class Task>
  auto with(std::size_t n, Task task) {
    return on_loop(loop_, [this, n, &task] { return task(*opened.at(n)); });
  }

  std::vector<std::shared_ptr<FakePodPort>> opened;  // loop thread

 private:
  ApiLoop& loop_;
  FakePodPortConfig config_;
};

}  // namespace vc::kubernetes::testing
