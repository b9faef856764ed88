// http_stateless_requests.cpp — see http_stateless_requests.h.
#include "transport/http_stateless_requests.h"

#include <optional>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/uv_handles.h"
#include "mcp/jsonrpc.h"
#include "transport/http_stateless_checks.h"

namespace vc::transport {
namespace {

bool is_answer(const Json& message) {
  return message.is_object() && (message.contains("result") || message.contains("error")) &&
         !message.contains("method");
}

HttpResponse error_response(const Json& id, const mcp::ProtocolError& error) {
  return HttpResponse::json(error.http_status,
                            mcp::jsonrpc::serialize(mcp::jsonrpc::make_error(
                                id, error.code, error.message, error.data)));
}

void write_sse_message(HttpConnection& stream, const Json& message) {
  stream.write_stream("event: message\ndata: " + mcp::jsonrpc::serialize(message) + "\n\n");
}

}  // namespace

struct StatelessRequests::Exchange {
  uint64_t serial = 0;
  Json id;
  std::unique_ptr<mcp::Session> session;
  Connection stream;  // set once the answer is a stream
  // While the request is delivered: what its session sent at once.
  bool capturing = true;
  std::optional<Json> answer;
  std::vector<Json> notifications;
  bool answered = false;
};

StatelessRequests::StatelessRequests(uv_loop_t* loop, SessionFactory make_session,
                                     SseHeartbeat* heartbeat)
    : loop_(loop), make_session_(std::move(make_session)), heartbeat_(heartbeat) {}

StatelessRequests::~StatelessRequests() {
  *alive_ = false;
  close_all();
}

void StatelessRequests::serve(const Connection& connection, const HttpRequest& request,
                              const Json& message) {
  const mcp::jsonrpc::Message classified = mcp::jsonrpc::classify(message);
  if (classified.kind == mcp::jsonrpc::MessageKind::notification ||
      classified.kind == mcp::jsonrpc::MessageKind::response) {
    connection->respond(HttpResponse{202, {}, ""});
    return;
  }
  if (classified.kind == mcp::jsonrpc::MessageKind::invalid) {
    connection->respond(error_response(
        classified.id, mcp::ProtocolError{mcp::jsonrpc::kInvalidRequest,
                                          "Invalid Request: " + classified.problem, nullptr, 400}));
    return;
  }
  if (auto refused = check_stateless_post(request, message)) {
    connection->respond(error_response(classified.id, *refused));
    return;
  }

  const uint64_t serial = next_serial_++;
  auto owned = std::make_unique<Exchange>();
  Exchange& exchange = *owned;
  exchange.serial = serial;
  exchange.id = classified.id;
  exchange.session = make_session_([this, raw = owned.get()](const Json& sent, const Json& related) {
    route(*raw, sent, related);
  });
  open_.emplace(serial, std::move(owned));

  exchange.session->receive(message);
  exchange.capturing = false;
  if (exchange.answer && exchange.notifications.empty()) {
    const Json& answer = *exchange.answer;
    const int status = answer.contains("error") && answer["error"].is_object()
                           ? stateless_error_status(answer["error"].value("code", 0))
                           : 200;
    connection->respond(HttpResponse::json(status, mcp::jsonrpc::serialize(answer)));
    open_.erase(serial);  // receive() has returned: nothing of the session runs any more
    return;
  }
  connection->begin_stream(200, {{"Content-Type", "text/event-stream"},
                                 {"Cache-Control", "no-cache"},
                                 {"X-Accel-Buffering", "no"}});
  for (const Json& notification : exchange.notifications) write_sse_message(*connection, notification);
  exchange.notifications.clear();
  if (exchange.answer) {
    write_sse_message(*connection, *exchange.answer);
    connection->end_stream();
    open_.erase(serial);
    return;
  }
  exchange.stream = connection;
  if (heartbeat_ != nullptr) heartbeat_->add(connection);
  // A closed stream is the client's cancel: the call is cancelled, nothing more is sent.
  std::weak_ptr<bool> alive = alive_;
  connection->on_close([this, alive, serial] {
    if (alive.expired()) return;
    auto found = open_.find(serial);
    if (found == open_.end() || found->second->answered) return;
    Exchange& closed = *found->second;
    closed.stream.reset();
    closed.session->receive(
        Json{{"jsonrpc", "2.0"},
             {"method", "notifications/cancelled"},
             {"params", {{"requestId", closed.id},
                         {"reason", "the client closed the request's stream"}}}});
    release_later(serial);
  });
}

void StatelessRequests::route(Exchange& exchange, const Json& message, const Json& related) {
  const bool answer = is_answer(message) && related == exchange.id;
  if (exchange.capturing) {
    if (answer) {
      exchange.answer = message;
    } else {
      exchange.notifications.push_back(message);
    }
    return;
  }
  if (exchange.answered) return;
  if (!exchange.stream || !exchange.stream->is_open()) return;
  write_sse_message(*exchange.stream, message);
  if (answer) {
    exchange.answered = true;
    exchange.stream->end_stream();
    exchange.stream.reset();
    // Called from inside the session: it is released once that call has returned.
    release_later(exchange.serial);
  }
}

void StatelessRequests::release_later(uint64_t serial) {
  std::weak_ptr<bool> alive = alive_;
  run_on_later_turn(loop_, [this, alive, serial] {
    if (!alive.expired()) open_.erase(serial);
  });
}

void StatelessRequests::close_all() {
  auto open = std::exchange(open_, {});
  for (auto& [serial, exchange] : open) {
    exchange->answered = true;  // the session's listen results and calls send nothing more
    exchange->session->cancel_all_calls();
    if (exchange->stream) exchange->stream->end_stream();
  }
}

}  // namespace vc::transport
