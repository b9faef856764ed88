#include "backend_proxy/completion_pump.h"

#include <vc-backend-1/vc_status.h>

namespace vc::backend_proxy {

CompletionPump::CompletionPump(Handler handler) : handler_(std::move(handler)) {}

Expected<std::shared_ptr<CompletionPump>> CompletionPump::open(uv_loop_t* loop, Handler handler) {
  std::shared_ptr<CompletionPump> pump(new CompletionPump(std::move(handler)));
  if (const int error = uv_async_init(loop, &pump->async_, &CompletionPump::on_wake); error != 0) {
    return Failure{VC_E_FAILED, std::string("cannot create the completion wake-up handle: ") +
                                    uv_strerror(error)};
  }
  pump->async_.data = pump.get();
  pump->self_until_closed_ = pump;
  uv_unref(reinterpret_cast<uv_handle_t*>(&pump->async_));  // idle until work is pending
  return pump;
}

bool CompletionPump::post(PumpEvent event) {
  std::lock_guard lock(mutex_);
  if (!accepting_) return false;
  queue_.push_back(std::move(event));
  // Sent under the lock, so close() cannot close the handle between the check and the send.
  uv_async_send(&async_);
  return true;
}

void CompletionPump::drain() {
  std::vector<PumpEvent> events;
  {
    std::lock_guard lock(mutex_);
    events.swap(queue_);
  }
  if (!events.empty() && handler_) handler_(events);
}

void CompletionPump::set_keeps_loop_alive(bool keep_alive) {
  if (close_requested_) return;
  auto* handle = reinterpret_cast<uv_handle_t*>(&async_);
  if (keep_alive)
    uv_ref(handle);
  else
    uv_unref(handle);
}

void CompletionPump::close(std::function<void()> closed) {
  if (close_requested_) {
    if (closed) closed();
    return;
  }
  close_requested_ = true;
  {
    std::lock_guard lock(mutex_);
    accepting_ = false;
    queue_.clear();
  }
  closed_ = std::move(closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&async_), &CompletionPump::on_closed);
}

void CompletionPump::on_wake(uv_async_t* async) {
  static_cast<CompletionPump*>(async->data)->drain();
}

void CompletionPump::on_closed(uv_handle_t* handle) {
  auto* pump = static_cast<CompletionPump*>(handle->data);
  std::function<void()> closed = std::move(pump->closed_);
  std::shared_ptr<CompletionPump> release = std::move(pump->self_until_closed_);
  if (closed) closed();
}

}  // namespace vc::backend_proxy
