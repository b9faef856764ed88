// signal_watcher.cpp — see signal_watcher.h.
#include "server/signal_watcher.h"

#include <csignal>
#include <utility>

#include <spdlog/spdlog.h>

namespace vc::server {

SignalWatcher::SignalWatcher(uv_loop_t* loop, std::function<void(int)> on_signal)
    : on_signal_(std::move(on_signal)) {
  for (auto [handle, number] : {std::pair{&interrupt_, SIGINT}, std::pair{&terminate_, SIGTERM}}) {
    uv_signal_init(loop, handle);
    handle->data = this;
    ++open_handles_;
    if (const int error = uv_signal_start(handle, &SignalWatcher::on_signal_event, number)) {
      spdlog::warn("cannot watch signal {}: {}", number, uv_strerror(error));
    }
  }
}

SignalWatcher::~SignalWatcher() {
  if (open_handles_ > 0) spdlog::critical("signal watcher destroyed without close()");
}

void SignalWatcher::close(std::function<void()> done) {
  close_done_ = std::move(done);
  for (uv_signal_t* handle : {&interrupt_, &terminate_}) {
    uv_close(reinterpret_cast<uv_handle_t*>(handle), &SignalWatcher::on_closed);
  }
}

void SignalWatcher::on_signal_event(uv_signal_t* handle, int signal_number) {
  auto* self = static_cast<SignalWatcher*>(handle->data);
  if (self->on_signal_) self->on_signal_(signal_number);
}

void SignalWatcher::on_closed(uv_handle_t* handle) {
  auto* self = static_cast<SignalWatcher*>(handle->data);
  if (--self->open_handles_ == 0) {
    if (auto done = std::move(self->close_done_)) done();
  }
}

}  // namespace vc::server
