// http_mcp_endpoint.cpp — see http_mcp_endpoint.h.
#include "transport/http_mcp_endpoint.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <vector>

#include <spdlog/spdlog.h>

#include "mcp/jsonrpc.h"
#include "mcp/protocol_era.h"
#include "transport/http_security.h"
#include "transport/http_stateless_checks.h"

#include <vc-backend-1/vc_status.h>

namespace vc::transport {
namespace {

constexpr const char* kMcpPath = "/mcp";
constexpr const char* kSessionHeader = "Mcp-Session-Id";

HttpResponse jsonrpc_error_response(int status, int code, const std::string& message) {
  return HttpResponse::json(
      status, mcp::jsonrpc::serialize(mcp::jsonrpc::make_error(nullptr, code, message)));
}

HttpResponse plain_error(int status, const std::string& error) {
  return HttpResponse::json(status, Json{{"error", error}}.dump());
}

std::string new_session_id() {
  unsigned char bytes[16];
  if (uv_random(nullptr, nullptr, bytes, sizeof bytes, 0, nullptr) != 0) {
    throw std::runtime_error("no random bytes for a session id");
  }
  std::string id;
  char hex[3];
  for (unsigned char byte : bytes) {
    std::snprintf(hex, sizeof hex, "%02x", byte);
    id += hex;
  }
  return id;
}

bool is_response(const Json& message) {
  return message.is_object() && (message.contains("result") || message.contains("error")) &&
         !message.contains("method");
}

bool supported_protocol_version(std::string_view version) {
  return std::any_of(std::begin(mcp::kSupportedProtocolVersions),
                     std::end(mcp::kSupportedProtocolVersions),
                     [version](const char* supported) { return version == supported; });
}

std::string supported_versions_text() {
  std::string text;
  for (const char* version : mcp::kSupportedProtocolVersions) {
    text += (text.empty() ? "" : ", ") + std::string(version);
  }
  return text;
}

int64_t parse_after(const std::optional<std::string>& text) {
  if (!text) return 0;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 0) return 0;
  return value;
}

}  // namespace

struct McpHttpEndpoint::HttpSession {
  McpHttpEndpoint* endpoint = nullptr;
  std::string id;
  std::unique_ptr<mcp::Session> mcp;
  // POST requests answered with a stream, by the request id's JSON text.
  std::map<std::string, Connection> request_streams;
  Connection get_stream;
  uv_timer_t* idle_timer = nullptr;
  uint64_t next_event_id = 1;
  // While a POSTed request is delivered: its id's JSON text, and what the session sent for it.
  std::optional<std::string> capturing;
  std::optional<Json> captured_answer;
  std::vector<Json> captured_notifications;

  void write_event(HttpConnection& stream, const Json& message) {
    stream.write_stream("event: message\nid: " + id + "-" + std::to_string(next_event_id++) +
                        "\ndata: " + mcp::jsonrpc::serialize(message) + "\n\n");
  }
};

// --- lifetime ----------------------------------------------------------------------------

McpHttpEndpoint::McpHttpEndpoint(uv_loop_t* loop, McpHttpSettings settings,
                                 SessionFactory make_session, ServiceInfo service_info)
    : loop_(loop),
      settings_(std::move(settings)),
      loopback_(is_loopback_bind(settings_.bind_host)),
      make_session_(std::move(make_session)),
      service_info_(std::move(service_info)),
      heartbeat_(loop, settings_.sse_keepalive_ms),
      stateless_(loop, make_session_, &heartbeat_) {}

McpHttpEndpoint::~McpHttpEndpoint() {
  closing_ = true;
  stateless_.close_all();
  while (!sessions_.empty()) end_session(sessions_.begin()->first, "the server stopped");
}

Expected<std::unique_ptr<McpHttpEndpoint>> McpHttpEndpoint::start(uv_loop_t* loop,
                                                                  McpHttpSettings settings,
                                                                  SessionFactory make_session,
                                                                  ServiceInfo service_info) {
  std::unique_ptr<McpHttpEndpoint> endpoint(new McpHttpEndpoint(
      loop, std::move(settings), std::move(make_session), std::move(service_info)));
  McpHttpEndpoint* self = endpoint.get();
  auto listener = HttpListener::listen(
      loop, self->settings_.bind_host, self->settings_.port, self->settings_.limits,
      [self](const Connection& connection, HttpRequest request) {
        self->handle(connection, std::move(request));
      });
  if (!listener) return listener.error();
  endpoint->listener_ = std::move(listener).value();
  return endpoint;
}

void McpHttpEndpoint::close(std::function<void()> done) {
  closing_ = true;
  stateless_.close_all();
  while (!sessions_.empty()) end_session(sessions_.begin()->first, "the server is shutting down");
  listener_->close(std::move(done));
}

// --- routing -----------------------------------------------------------------------------

void McpHttpEndpoint::handle(const Connection& connection, HttpRequest request) {
  if (closing_) {
    connection->respond(plain_error(503, "the server is shutting down"), true);
    return;
  }
  // HEAD reads what GET would; the connection leaves the body out of its answer.
  const bool reads = request.method == "GET" || request.method == "HEAD";
  if (request.path == "/healthz" && reads) {
    connection->respond(HttpResponse::json(200, R"({"status":"ok"})"));
    return;
  }
  if (request.path == "/dashboard.html" && reads) {
    if (passes_security(connection, request, false)) serve_dashboard(connection);
    return;
  }
  if (!passes_security(connection, request)) return;
  if (request.path == kMcpPath) {
    if (request.method == "POST") return handle_post(connection, request);
    if (reads) return handle_get_stream(connection, request);
    if (request.method == "DELETE") return handle_delete(connection, request);
    connection->respond(plain_error(405, "method not allowed")
                            .with_header("Allow", "GET, HEAD, POST, DELETE"));
    return;
  }
  if (!reads) {
    connection->respond(plain_error(405, "method not allowed").with_header("Allow", "GET, HEAD"));
    return;
  }
  if (request.path == "/") {
    connection->respond(HttpResponse::json(200, (service_info_ ? service_info_() : Json::object()).dump()));
    return;
  }
  if (request.path == "/activity") {
    const int64_t after = parse_after(request.query_parameter("after"));
    const Json feed = settings_.activity ? settings_.activity->since(after)
                                         : Json{{"revision", 0}, {"events", Json::array()}};
    connection->respond(HttpResponse::json(200, feed.dump())
                            .with_header("Cache-Control", "no-store"));
    return;
  }
  connection->respond(plain_error(404, "not found"));
}

// The page's own policy: everything it needs is inline; it talks to this server and to the
// desktop's bridge on loopback; no other page may frame it (it is a control panel).
constexpr const char* kDashboardPolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
    "img-src data: blob:; media-src blob:; font-src data:; "
    "connect-src 'self' ws://127.0.0.1:* ws://localhost:*; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

void McpHttpEndpoint::serve_dashboard(const Connection& connection) {
  auto page = settings_.dashboard_page ? settings_.dashboard_page()
                                       : Expected<std::string>(Failure{VC_E_UNSUPPORTED,
                                             "this server has no dashboard page"});
  if (!page) {
    connection->respond(plain_error(404, page.error().message));
    return;
  }
  HttpResponse response;
  response.status = 200;
  response.body = std::move(page).value();
  response.with_header("Content-Type", "text/html; charset=utf-8")
      .with_header("Content-Security-Policy", kDashboardPolicy)
      .with_header("Referrer-Policy", "no-referrer")
      .with_header("X-Content-Type-Options", "nosniff")
      .with_header("Cache-Control", "no-store");
  connection->respond(std::move(response));
}

bool McpHttpEndpoint::passes_security(const Connection& connection, const HttpRequest& request,
                                      bool require_token) {
  if (loopback_) {
    const auto host = request.header("host");
    if (!host || !host_header_allowed(*host)) {
      connection->respond(plain_error(421, "Invalid Host header"));
      return false;
    }
    if (!origin_allowed(request.header("origin"))) {
      connection->respond(plain_error(403, "Invalid Origin header"));
      return false;
    }
  }
  if (require_token && settings_.auth_token &&
      !bearer_matches(request.header("authorization"), *settings_.auth_token)) {
    connection->respond(
        plain_error(401, "unauthorized").with_header("WWW-Authenticate", "Bearer"));
    return false;
  }
  return true;
}

McpHttpEndpoint::HttpSession* McpHttpEndpoint::session_of(const Connection& connection,
                                                          const HttpRequest& request) {
  const auto id = request.header("mcp-session-id");
  if (!id) {
    connection->respond(jsonrpc_error_response(400, -32000, "Bad Request: Missing session ID"));
    return nullptr;
  }
  const auto found = sessions_.find(std::string(*id));
  if (found == sessions_.end()) {
    connection->respond(jsonrpc_error_response(404, -32001, "Session not found"));
    return nullptr;
  }
  if (const auto version = request.header("mcp-protocol-version");
      version && !supported_protocol_version(*version)) {
    connection->respond(jsonrpc_error_response(
        400, -32000,
        "Bad Request: Unsupported protocol version " + std::string(*version) +
            " (supported: " + supported_versions_text() + ")"));
    return nullptr;
  }
  touch(*found->second);
  return found->second.get();
}

void McpHttpEndpoint::handle_post(const Connection& connection, const HttpRequest& request) {
  const auto accept = request.header("accept");
  if (!accepts(accept, "application/json") || !accepts(accept, "text/event-stream")) {
    connection->respond(jsonrpc_error_response(
        406, -32000, "Not Acceptable: Client must accept both application/json and text/event-stream"));
    return;
  }
  if (!content_type_is(request.header("content-type"), "application/json")) {
    connection->respond(jsonrpc_error_response(
        415, -32000, "Unsupported Media Type: Content-Type must be application/json"));
    return;
  }
  // jsonrpc::parse, as stdio reads a line: it refuses nesting that copying the message would
  // recurse through until the stack overflows (a body of 40 KB of '[' was enough).
  auto parsed = mcp::jsonrpc::parse(request.body);
  if (!parsed) {
    connection->respond(jsonrpc_error_response(400, mcp::jsonrpc::kParseError,
                                               "Parse error: " + parsed.error().message));
    return;
  }
  const Json message = std::move(parsed).value();
  if (message.is_array()) {
    connection->respond(jsonrpc_error_response(
        400, mcp::jsonrpc::kInvalidRequest,
        "Invalid Request: batches are not supported; send one JSON-RPC message per request"));
    return;
  }
  const auto era_header = request.header("mcp-protocol-version");
  if (mcp::claims_stateless_era(message) ||
      (era_header && mcp::names_stateless_era(header_value_text(*era_header).value_or("")))) {
    stateless_.serve(connection, request, message);
    return;
  }
  const bool is_request = message.is_object() && message.contains("method") &&
                          message.contains("id");
  // Not value("method", ""): it throws when the method is not a string.
  if (is_request && message["method"] == "initialize") {
    if (request.header("mcp-session-id")) {
      connection->respond(jsonrpc_error_response(
          400, mcp::jsonrpc::kInvalidRequest,
          "Invalid Request: initialize starts a new session; send it without Mcp-Session-Id"));
      return;
    }
    if (sessions_.size() >= settings_.max_sessions) {
      connection->respond(jsonrpc_error_response(
          503, -32000,
          "Service Unavailable: too many open sessions (" + std::to_string(settings_.max_sessions) +
              "); end unused ones with DELETE or let them time out"));
      return;
    }
    HttpSession& session = create_session();
    const std::string id = session.id;
    post_request(session, connection, message);
    auto created = sessions_.find(id);
    if (created != sessions_.end() && !created->second->mcp->initialized()) {
      end_session(id, "initialize failed");
    }
    return;
  }
  HttpSession* session = session_of(connection, request);
  if (session == nullptr) return;
  if (!is_request) {
    session->mcp->receive(message);  // notifications and responses: nothing to answer
    connection->respond(HttpResponse{202, {{kSessionHeader, session->id}}, ""});
    return;
  }
  post_request(*session, connection, message);
}

void McpHttpEndpoint::post_request(HttpSession& session, const Connection& connection,
                                   const Json& message) {
  const std::string key = message["id"].dump();
  session.capturing = key;
  session.captured_answer.reset();
  session.captured_notifications.clear();
  session.mcp->receive(message);
  session.capturing.reset();
  auto answer = std::exchange(session.captured_answer, std::nullopt);
  auto notifications = std::exchange(session.captured_notifications, {});

  if (answer && notifications.empty()) {
    HttpResponse response = HttpResponse::json(200, mcp::jsonrpc::serialize(*answer));
    response.with_header(kSessionHeader, session.id);
    connection->respond(response);
    return;
  }
  connection->begin_stream(200, {{"Content-Type", "text/event-stream"},
                                 {"Cache-Control", "no-cache"},
                                 {kSessionHeader, session.id}});
  heartbeat_.add(connection);
  for (const auto& notification : notifications) session.write_event(*connection, notification);
  if (answer) {
    session.write_event(*connection, *answer);
    connection->end_stream();
    return;
  }
  session.request_streams[key] = connection;
  // A client whose stream closes before the result cancels the request. MCP 2025-11-25 lets a
  // client resume such a stream, so it says not to take a disconnect for a cancel; this server
  // offers no resumption (no event ids), so the result could never reach anyone, while the
  // command would hold the computer, which runs one command at a time, for every session.
  connection->on_close([this, session_id = session.id, key, request_id = message["id"],
                        raw = connection.get()] {
    auto found = sessions_.find(session_id);
    if (found == sessions_.end()) return;
    auto stream = found->second->request_streams.find(key);
    if (stream == found->second->request_streams.end() || stream->second.get() != raw) return;
    found->second->request_streams.erase(stream);
    found->second->mcp->receive(
        Json{{"jsonrpc", "2.0"},
             {"method", "notifications/cancelled"},
             {"params", {{"requestId", request_id},
                         {"reason", "the client's connection closed before the result"}}}});
  });
}

void McpHttpEndpoint::handle_get_stream(const Connection& connection, const HttpRequest& request) {
  if (!accepts(request.header("accept"), "text/event-stream")) {
    connection->respond(jsonrpc_error_response(406, -32000,
                                               "Not Acceptable: Client must accept text/event-stream"));
    return;
  }
  HttpSession* session = session_of(connection, request);
  if (session == nullptr) return;
  if (session->get_stream && session->get_stream->is_open()) {
    connection->respond(jsonrpc_error_response(
        409, -32000, "Conflict: this session already has a server-to-client stream open"));
    return;
  }
  if (request.method == "HEAD") {
    // The head of the stream GET would open; no stream is opened.
    connection->respond(HttpResponse{200,
                                     {{"Content-Type", "text/event-stream"},
                                      {"Cache-Control", "no-cache"},
                                      {kSessionHeader, session->id}},
                                     ""});
    return;
  }
  connection->begin_stream(200, {{"Content-Type", "text/event-stream"},
                                 {"Cache-Control", "no-cache"},
                                 {kSessionHeader, session->id}});
  connection->write_stream(": stream open\n\n");
  heartbeat_.add(connection);
  session->get_stream = connection;
  connection->on_close([this, session_id = session->id, raw = connection.get()] {
    auto found = sessions_.find(session_id);
    if (found != sessions_.end() && found->second->get_stream.get() == raw) {
      found->second->get_stream.reset();
      touch(*found->second);
    }
  });
}

void McpHttpEndpoint::handle_delete(const Connection& connection, const HttpRequest& request) {
  HttpSession* session = session_of(connection, request);
  if (session == nullptr) return;
  end_session(session->id, "the client ended it");
  connection->respond(HttpResponse::json(200, "{}"));
}

// --- sessions ----------------------------------------------------------------------------

McpHttpEndpoint::HttpSession& McpHttpEndpoint::create_session() {
  auto session = std::make_unique<HttpSession>();
  session->id = new_session_id();
  HttpSession* raw = session.get();
  session->mcp = make_session_([this, raw](const Json& message, const Json& related) {
    route(*raw, message, related);
  });
  session->endpoint = this;
  session->idle_timer = new uv_timer_t;
  uv_timer_init(loop_, session->idle_timer);
  session->idle_timer->data = raw;
  auto& stored = sessions_[session->id];
  stored = std::move(session);
  touch(*stored);
  spdlog::info("http: session {} started ({} open)", stored->id, sessions_.size());
  return *stored;
}

void McpHttpEndpoint::route(HttpSession& session, const Json& message, const Json& related) {
  const std::string key = related.is_null() ? std::string() : related.dump();
  const bool response = is_response(message);
  if (!key.empty() && session.capturing == key) {
    if (response) {
      session.captured_answer = message;
    } else {
      session.captured_notifications.push_back(message);
    }
    return;
  }
  if (!key.empty()) {
    auto stream = session.request_streams.find(key);
    if (stream != session.request_streams.end()) {
      auto connection = stream->second;
      session.write_event(*connection, message);
      if (response) {
        session.request_streams.erase(stream);
        connection->end_stream();
      }
      return;
    }
  }
  if (response) {
    spdlog::debug("http: session {}: the client of request {} went away; result dropped",
                  session.id, key);
    return;
  }
  if (session.get_stream && session.get_stream->is_open()) {
    session.write_event(*session.get_stream, message);
  }
}

void McpHttpEndpoint::touch(HttpSession& session) {
  if (session.idle_timer == nullptr || settings_.session_timeout_ms == 0) return;
  uv_timer_start(
      session.idle_timer,
      [](uv_timer_t* timer) {
        auto* idle = static_cast<HttpSession*>(timer->data);
        idle->endpoint->on_idle(*idle);
      },
      settings_.session_timeout_ms, 0);
}

void McpHttpEndpoint::on_idle(HttpSession& session) {
  const bool busy = session.mcp->calls_in_flight() > 0 || !session.request_streams.empty() ||
                    (session.get_stream && session.get_stream->is_open());
  if (busy) {
    touch(session);  // a session is idle only when nothing of it is running or open
    return;
  }
  end_session(session.id, "idle for longer than the session timeout");
}

void McpHttpEndpoint::end_session(std::string id, const char* reason) {
  auto found = sessions_.find(id);
  if (found == sessions_.end()) return;
  std::unique_ptr<HttpSession> session = std::move(found->second);
  sessions_.erase(found);
  session->mcp->cancel_all_calls();
  for (auto& [key, stream] : session->request_streams) stream->end_stream();
  session->request_streams.clear();
  if (session->get_stream) session->get_stream->end_stream();
  session->get_stream.reset();
  uv_close(reinterpret_cast<uv_handle_t*>(session->idle_timer),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
  session->idle_timer = nullptr;
  session->mcp.reset();
  spdlog::info("http: session {} ended: {} ({} open)", id, reason, sessions_.size());
}

}  // namespace vc::transport
