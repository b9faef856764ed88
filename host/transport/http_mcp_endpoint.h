// http_mcp_endpoint.h — MCP's Streamable HTTP transport (2025-11-25) and the service routes.
//
// Both eras of MCP share /mcp (mcp/protocol_era.h): a POST whose body claims the 2026-07-28
// revision, or whose MCP-Protocol-Version header names it, is served statelessly
// (http_stateless_requests.h) with that revision's checks (http_stateless_checks.h); everything
// else is 2025 traffic, served in sessions as below.
//
// Routes:
//   POST   /mcp       one JSON-RPC message. initialize creates a session (Mcp-Session-Id);
//                     notifications and responses get 202; a request is answered with JSON when
//                     the session answers at once, otherwise with an SSE stream that carries
//                     the request's progress and log notifications, then its result.
//   GET    /mcp       the session's server-to-client SSE stream (messages tied to no request).
//   HEAD   /mcp       what GET would answer, without opening the stream.
//   DELETE /mcp       ends the session; its id then gets 404.
//   GET    /healthz   {"status":"ok"}, always open.
//   GET    /          service information.
//   GET    /activity  the activity feed (mcp/activity_feed.h), Cache-Control: no-store.
//   GET    /dashboard.html  the MCP App as a page of its own (docs/app.md): open without the
//                     token (the page holds no secret; it asks for the token and sends it to
//                     /mcp itself), with a Content-Security-Policy; 404 when not installed.
//
// Checks, in order, on every route but /healthz (and /dashboard.html, which skips the token): on a loopback bind the Host header must name
// a loopback host (421) and an Origin, when present, a loopback origin (403); when a token is
// configured, Authorization must carry it (401, WWW-Authenticate: Bearer). On /mcp: Accept
// (406), Content-Type (415), the session id (400 missing, 404 unknown or ended),
// MCP-Protocol-Version (400 when unsupported). Bodies over max_body_bytes get 413 from the
// connection before anything else happens.
//
// A session idle for session_timeout_ms (no request, no call in flight, no open stream) is
// ended and everything it holds is released. Every session shares the one computer.
//
// [loop-thread] for every member.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include <uv.h>

#include "common/failure.h"
#include "common/json.h"
#include "mcp/session.h"
#include "mcp/activity_feed.h"
#include "transport/http_listener.h"
#include "transport/http_stateless_requests.h"
#include "transport/sse_heartbeat.h"

namespace vc::transport {

struct McpHttpSettings {
  std::string bind_host = "127.0.0.1";
  uint16_t port = 8435;
  std::optional<std::string> auth_token;
  uint64_t session_timeout_ms = 300'000;
  // More sessions than this get 503 at initialize: each costs a few KiB until it times out.
  size_t max_sessions = 4096;
  // An SSE comment on every open stream this often, for proxies that cut idle responses
  // (sse_heartbeat.h); 0: none.
  uint64_t sse_keepalive_ms = 25'000;
  ConnectionLimits limits;
  // The feed GET /activity serves (outlives the endpoint); null serves an empty feed.
  const mcp::ActivityFeed* activity = nullptr;
  // The HTML of GET /dashboard.html, read on each request; a Failure (not installed) is a 404
  // with its message. Unset: 404.
  std::function<Expected<std::string>()> dashboard_page;
};

class McpHttpEndpoint {
 public:
  // Makes the MCP session of a new HTTP session; `send` routes its messages.
  using SessionFactory = std::function<std::unique_ptr<mcp::Session>(mcp::Session::SendFn send)>;
  // The body of GET /.
  using ServiceInfo = std::function<Json()>;

  static Expected<std::unique_ptr<McpHttpEndpoint>> start(uv_loop_t* loop,
                                                          McpHttpSettings settings,
                                                          SessionFactory make_session,
                                                          ServiceInfo service_info);
  ~McpHttpEndpoint();
  McpHttpEndpoint(const McpHttpEndpoint&) = delete;
  McpHttpEndpoint& operator=(const McpHttpEndpoint&) = delete;

  // Cancels every session's calls (no replies), ends the sessions and closes the socket.
  void close(std::function<void()> done);

  uint16_t port() const { return listener_->port(); }
  size_t session_count() const { return sessions_.size(); }
  // 2026-07-28 requests not answered yet (streams open, listens included).
  size_t stateless_requests_open() const { return stateless_.open_requests(); }

 private:
  struct HttpSession;
  using Connection = std::shared_ptr<HttpConnection>;

  McpHttpEndpoint(uv_loop_t* loop, McpHttpSettings settings, SessionFactory make_session,
                  ServiceInfo service_info);

  void handle(const Connection& connection, HttpRequest request);
  // `require_token`: whether the bearer token (when configured) is checked too.
  bool passes_security(const Connection& connection, const HttpRequest& request,
                       bool require_token = true);
  void serve_dashboard(const Connection& connection);
  void handle_post(const Connection& connection, const HttpRequest& request);
  void handle_get_stream(const Connection& connection, const HttpRequest& request);
  void handle_delete(const Connection& connection, const HttpRequest& request);
  void post_request(HttpSession& session, const Connection& connection, const Json& message);

  // The session named by the request's Mcp-Session-Id; answers 400/404 and returns null.
  HttpSession* session_of(const Connection& connection, const HttpRequest& request);
  HttpSession& create_session();
  void route(HttpSession& session, const Json& message, const Json& related_request);
  void touch(HttpSession& session);
  void on_idle(HttpSession& session);
  void end_session(std::string id, const char* reason);  // by value: callers pass map keys

  uv_loop_t* loop_;
  McpHttpSettings settings_;
  bool loopback_;
  SessionFactory make_session_;
  ServiceInfo service_info_;
  std::unique_ptr<HttpListener> listener_;
  std::unordered_map<std::string, std::unique_ptr<HttpSession>> sessions_;
  SseHeartbeat heartbeat_;  // before the streams it beats on
  // 2026-07-28 requests: each served on its own, belonging to no session.
  StatelessRequests stateless_;
  bool closing_ = false;
};

}  // namespace vc::transport
