// sse_heartbeat.cpp — see sse_heartbeat.h.
#include "transport/sse_heartbeat.h"

#include <algorithm>

#include "common/uv_handles.h"

namespace vc::transport {

SseHeartbeat::SseHeartbeat(uv_loop_t* loop, uint64_t interval_ms)
    : loop_(loop), interval_ms_(interval_ms) {}

SseHeartbeat::~SseHeartbeat() {
  if (timer_ != nullptr) close_and_delete(std::exchange(timer_, nullptr));
}

void SseHeartbeat::add(const std::shared_ptr<HttpConnection>& stream) {
  if (interval_ms_ == 0 || !stream) return;
  streams_.push_back(stream);
  if (timer_ != nullptr) return;
  timer_ = new uv_timer_t;
  uv_timer_init(loop_, timer_);
  timer_->data = this;
  uv_unref(reinterpret_cast<uv_handle_t*>(timer_));
  uv_timer_start(
      timer_, [](uv_timer_t* timer) { static_cast<SseHeartbeat*>(timer->data)->beat(); },
      interval_ms_, interval_ms_);
}

void SseHeartbeat::beat() {
  const auto ended = [](const std::weak_ptr<HttpConnection>& weak) {
    const auto stream = weak.lock();
    return !stream || !stream->is_open() || !stream->streaming();
  };
  streams_.erase(std::remove_if(streams_.begin(), streams_.end(), ended), streams_.end());
  // A copy: a write may fail and close its connection, whose callbacks may add or end streams.
  const auto beating = streams_;
  for (const auto& weak : beating) {
    if (auto stream = weak.lock(); stream && stream->is_open() && stream->streaming()) {
      stream->write_stream(": keep-alive\n\n");
    }
  }
  if (streams_.empty() && timer_ != nullptr) close_and_delete(std::exchange(timer_, nullptr));
}

}  // namespace vc::transport
