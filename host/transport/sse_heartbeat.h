// sse_heartbeat.h — keeps open SSE streams from looking idle to proxies and load balancers.
//
// A stream that carries nothing for a while (a subscriptions/listen with no change to report,
// a GET stream, a long command without progress) is cut by intermediaries that time out idle
// responses (nginx's proxy_read_timeout is 60 s by default). Every `interval` each registered
// stream gets an SSE comment line (": keep-alive"), which every SSE client ignores. The timer
// runs only while a stream is registered and does not keep the loop alive.
//
// [loop-thread] for every member.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <uv.h>

#include "transport/http_connection.h"

namespace vc::transport {

class SseHeartbeat {
 public:
  // `interval_ms` 0: no heartbeat at all (add() does nothing).
  SseHeartbeat(uv_loop_t* loop, uint64_t interval_ms);
  ~SseHeartbeat();
  SseHeartbeat(const SseHeartbeat&) = delete;
  SseHeartbeat& operator=(const SseHeartbeat&) = delete;

  // A stream that has begun (HttpConnection::begin_stream); it is dropped once it ends.
  void add(const std::shared_ptr<HttpConnection>& stream);

  size_t streams() const { return streams_.size(); }

 private:
  void beat();

  uv_loop_t* loop_;
  uint64_t interval_ms_;
  uv_timer_t* timer_ = nullptr;  // while streams are registered
  std::vector<std::weak_ptr<HttpConnection>> streams_;
};

}  // namespace vc::transport
