// completion_pump.h — carries a backend's emits and completions from plugin threads to the loop.
//
// Any thread posts an event; the events wait in a mutex-protected FIFO and one uv_async_t wakes
// the loop. uv_async_send coalesces wake-ups (five sends may give one callback), so the callback
// takes the whole queue at once and hands it to the handler in posting order.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <uv.h>
#include <vc-backend-1/vc_op.h>

#include "common/failure.h"

namespace vc::backend_proxy {

struct PumpEvent {
  enum class Kind { emit, complete };
  Kind kind = Kind::complete;
  uint64_t op_id = 0;
  vc_stream stream = 0;  // emit
  vc_status status = 0;  // complete
  std::string payload;   // emit: the bytes; complete: the result or details JSON
  std::string message;   // complete: the failure message
  // complete: made by the host (rejected or unsupported op), not by the plugin; status and
  // message are final and payload is empty.
  bool from_host = false;
};

class CompletionPump {
 public:
  using Handler = std::function<void(std::vector<PumpEvent>& events)>;

  // [loop-thread] Opens the pump on `loop`. `handler` receives every batch, on the loop thread.
  static Expected<std::shared_ptr<CompletionPump>> open(uv_loop_t* loop, Handler handler);

  // [any-thread] Queues `event` and wakes the loop. Returns false (event dropped) once closed.
  bool post(PumpEvent event);

  // [loop-thread] Hands everything queued so far to the handler now.
  void drain();

  // [loop-thread] Whether the pending work keeps uv_run() going (uv_ref / uv_unref).
  void set_keeps_loop_alive(bool keep_alive);

  // [loop-thread] Stops accepting events, drops those still queued and closes the uv_async_t.
  // `closed` (optional) runs once libuv has released the handle. Idempotent.
  void close(std::function<void()> closed = {});

  CompletionPump(const CompletionPump&) = delete;
  CompletionPump& operator=(const CompletionPump&) = delete;
  ~CompletionPump() = default;

 private:
  explicit CompletionPump(Handler handler);
  static void on_wake(uv_async_t* async);
  static void on_closed(uv_handle_t* handle);

  uv_async_t async_{};
  Handler handler_;
  std::mutex mutex_;
  std::vector<PumpEvent> queue_;  // guarded by mutex_
  bool accepting_ = true;         // guarded by mutex_
  bool close_requested_ = false;  // [loop-thread]
  std::function<void()> closed_;
  // The uv_async_t lives inside this object, so the object lives until libuv released it.
  std::shared_ptr<CompletionPump> self_until_closed_;
};

}  // namespace vc::backend_proxy
