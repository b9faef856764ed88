// stream_recorder.h — what an exec or port-forward stream delivered, recorded from the loop
// thread, and waits for it from the test's thread.
//
// Thread rule: the callbacks() run on the ApiLoop's thread; wait_*() and snapshots on the
// test's thread. The recorder is shared with the callbacks, so that a test that fails early
// leaves nothing dangling.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "exec_stream.h"
#include "port_forward_stream.h"

namespace vc::kubernetes::testing {

class StreamRecorder : public std::enable_shared_from_this<StreamRecorder> {
 public:
  static std::shared_ptr<StreamRecorder> make() { return std::make_shared<StreamRecorder>(); }

  ExecCallbacks exec_callbacks() {
    ExecCallbacks callbacks;
    auto self = shared_from_this();
    callbacks.on_open = [self](ChannelProtocol chosen) {
      self->update([&] { self->protocol = chosen; });
    };
    callbacks.on_stdout = [self](std::string_view bytes) {
      self->update([&] { self->out.append(bytes); });
    };
    callbacks.on_stderr = [self](std::string_view bytes) {
      self->update([&] { self->err.append(bytes); });
    };
    callbacks.on_stdin_drained = [self] { self->update([&] { ++self->drained; }); };
    callbacks.on_exit = [self](ApiExpected<ExecExit> result) {
      self->update([&] {
        ++self->ends;
        self->exit.emplace(std::move(result));
      });
    };
    return callbacks;
  }

  PortForwardCallbacks port_forward_callbacks() {
    PortForwardCallbacks callbacks;
    auto self = shared_from_this();
    callbacks.on_open = [self] { self->update([&] { self->opened = true; }); };
    callbacks.on_data = [self](std::string_view bytes) {
      self->update([&] { self->out.append(bytes); });
    };
    callbacks.on_drained = [self] { self->update([&] { ++self->drained; }); };
    callbacks.on_close = [self](ApiExpected<void> result) {
      self->update([&] {
        ++self->ends;
        self->closed.emplace(std::move(result));
      });
    };
    return callbacks;
  }

  // Waits until `condition()` (called with the lock held) or `limit`; returns the former.
  template <class Condition>
  bool wait_until(Condition condition, std::chrono::milliseconds limit) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, limit, condition);
  }
  bool wait_for_exit(std::chrono::milliseconds limit) {
    return wait_until([this] { return exit.has_value(); }, limit);
  }
  bool wait_for_close(std::chrono::milliseconds limit) {
    return wait_until([this] { return closed.has_value(); }, limit);
  }
  std::string output() {
    std::lock_guard lock(mutex);
    return out;
  }
  int drained_count() {
    std::lock_guard lock(mutex);
    return drained;
  }

  // Written by the callbacks under `mutex`; read under it, or after the stream's end.
  std::mutex mutex;
  std::condition_variable changed;
  std::optional<ChannelProtocol> protocol;
  bool opened = false;
  std::string out;  // stdout, or the port's data
  std::string err;
  int drained = 0;
  int ends = 0;     // on_exit / on_close calls: must be one
  std::optional<ApiExpected<ExecExit>> exit;
  std::optional<ApiExpected<void>> closed;

 private:
  template <class Change>
  void update(Change change) {
    {
      std::lock_guard lock(mutex);
      change();
    }
    changed.notify_all();
  }
};

}  // namespace vc::kubernetes::testing
