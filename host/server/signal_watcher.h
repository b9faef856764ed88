// signal_watcher.h — SIGINT and SIGTERM as loop events.
#pragma once

#include <functional>
#include <memory>

#include <uv.h>

namespace vc::server {

// [loop-thread] for every member.
class SignalWatcher {
 public:
  // Watches SIGINT and SIGTERM; `on_signal` gets the signal number, on the loop thread.
  SignalWatcher(uv_loop_t* loop, std::function<void(int signal_number)> on_signal);
  ~SignalWatcher();  // must have been closed
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  // Stops watching and releases the handles; `done` runs once they are closed.
  void close(std::function<void()> done);

 private:
  static void on_signal_event(uv_signal_t* handle, int signal_number);
  static void on_closed(uv_handle_t* handle);

  std::function<void(int)> on_signal_;
  uv_signal_t interrupt_{};
  uv_signal_t terminate_{};
  int open_handles_ = 0;
  std::function<void()> close_done_;
};

}  // namespace vc::server
