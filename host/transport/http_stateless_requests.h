// http_stateless_requests.h — 2026-07-28 requests over Streamable HTTP: one session each.
//
// A stateless request belongs to no HTTP session: it passed the revision's checks
// (http_stateless_checks.h) and is served by an MCP session made for it alone, which carries
// nothing over from any other request. The answer is JSON when the session answers at once
// and nothing came before it; otherwise an SSE stream (no event ids: a broken stream is a
// lost request) carries the request's progress and log notifications, then its result. A
// subscriptions/listen request keeps its stream open for the list changes it asked for.
//
// A client cancels by closing the response stream: the request's tool call is cancelled (a
// command is killed) and its session is released. Notifications and responses POSTed in this
// era get 202 and are dropped (the revision has no server-to-client requests, and
// cancellation is the closed stream).
//
// Any host process can serve any such request: nothing here is kept once its answer is sent.
//
// [loop-thread] for every member.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>

#include <uv.h>

#include "common/json.h"
#include "mcp/session.h"
#include "transport/http_connection.h"
#include "transport/http_message.h"
#include "transport/sse_heartbeat.h"

namespace vc::transport {

class StatelessRequests {
 public:
  using Connection = std::shared_ptr<HttpConnection>;
  using SessionFactory = std::function<std::unique_ptr<mcp::Session>(mcp::Session::SendFn send)>;

  // `heartbeat` (borrowed, may be null) keeps the streams of long requests and listens alive.
  StatelessRequests(uv_loop_t* loop, SessionFactory make_session, SseHeartbeat* heartbeat = nullptr);
  ~StatelessRequests();
  StatelessRequests(const StatelessRequests&) = delete;
  StatelessRequests& operator=(const StatelessRequests&) = delete;

  // Serves `message`, a POSTed body of the 2026 era, on `connection`.
  void serve(const Connection& connection, const HttpRequest& request, const Json& message);
  // Cancels every request still open (no answers) and ends their streams.
  void close_all();

  size_t open_requests() const { return open_.size(); }

 private:
  struct Exchange;
  void route(Exchange& exchange, const Json& message, const Json& related);
  void release_later(uint64_t serial);

  uv_loop_t* loop_;
  SessionFactory make_session_;
  SseHeartbeat* heartbeat_;
  uint64_t next_serial_ = 1;
  std::map<uint64_t, std::unique_ptr<Exchange>> open_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace vc::transport
