// engine_client.cpp — the public client: builds requests and launches operations.
#include "vc_engine/engine_client.h"

#include "client_state.h"
#include "exec_connection.h"
#include "http_exchange.h"
#include "json_response.h"
#include "ndjson_splitter.h"
#include "negotiation.h"
#include "request_writer.h"
#include "vc_engine/url.h"

namespace vc::engine {

using detail::ClientState;
using detail::ConnectionMode;
using detail::ExchangeCallbacks;
using detail::HttpExchange;

namespace {

std::string json_text(const nlohmann::json& document) {
  // Replace invalid UTF-8 instead of throwing: a command line or label from the user must not
  // crash the plugin.
  return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Builds and launches an exchange; a request that cannot be written completes at once (on this
// thread) with kInvalidArgument.
RequestHandle launch_exchange(const ClientState& client, const HttpRequest& request,
                              RequestOptions deadlines, ExchangeCallbacks callbacks) {
  Result<std::string> bytes = detail::write_request(
      request, client.address, client.options.user_agent, ConnectionMode::kClose);
  if (!bytes) {
    callbacks.on_done(bytes.error());
    return {};
  }
  callbacks.on_done = [losses = client.connection_losses,
                       on_done = std::move(callbacks.on_done)](Result<HttpResponse> response) {
    if (!response && (response.error().kind == EngineErrorKind::kConnect ||
                      response.error().kind == EngineErrorKind::kTransport)) {
      losses->fetch_add(1, std::memory_order_relaxed);
    }
    on_done(std::move(response));
  };
  auto exchange = std::make_shared<HttpExchange>(client.loop, client.address, deadlines,
                                                 std::move(bytes).value(), request.method == "HEAD",
                                                 std::move(callbacks));
  return detail::launch(exchange);
}

HttpRequest json_request(const ClientState& client, std::string method, std::string_view path,
                         const std::optional<nlohmann::json>& body) {
  HttpRequest request;
  request.method = std::move(method);
  request.target = client.api_prefix() + std::string(path);
  if (body) {
    request.content_type = "application/json";
    request.body = json_text(*body);
  }
  return request;
}

}  // namespace

struct EngineClient::State : ClientState {
  using ClientState::ClientState;
};

EngineClient::EngineClient(EngineLoop& loop, EngineAddress address, ClientOptions options)
    : state_(std::make_shared<State>(loop, std::move(address), std::move(options))) {}

EngineClient::~EngineClient() = default;

const EngineAddress& EngineClient::address() const {
  return state_->address;
}

EngineLoop& EngineClient::loop() const {
  return state_->loop;
}

RequestHandle EngineClient::negotiate(InfoCallback on_done, RequestOptions deadlines) {
  return detail::launch(
      std::make_shared<detail::Negotiation>(state_, deadlines, std::move(on_done)));
}

std::optional<EngineInfo> EngineClient::info() const {
  std::lock_guard lock(state_->mutex);
  return state_->info;
}

std::string EngineClient::api_prefix() const {
  return state_->api_prefix();
}

std::string EngineClient::api_target(std::string_view path_and_query) const {
  return api_prefix() + std::string(path_and_query);
}

std::uint64_t EngineClient::connection_losses() const {
  return state_->connection_losses->load(std::memory_order_relaxed);
}

RequestHandle EngineClient::request(HttpRequest request, ResponseCallback on_done,
                                    RequestOptions deadlines) {
  ExchangeCallbacks callbacks;
  callbacks.on_done = std::move(on_done);
  return launch_exchange(*state_, request, deadlines, std::move(callbacks));
}

RequestHandle EngineClient::get_json(std::string path, JsonCallback on_done,
                                     RequestOptions deadlines) {
  return call_json("GET", std::move(path), std::nullopt, std::move(on_done), deadlines);
}

RequestHandle EngineClient::post_json(std::string path, std::optional<nlohmann::json> body,
                                      JsonCallback on_done, RequestOptions deadlines) {
  return call_json("POST", std::move(path), std::move(body), std::move(on_done), deadlines);
}

RequestHandle EngineClient::delete_json(std::string path, JsonCallback on_done,
                                        RequestOptions deadlines) {
  return call_json("DELETE", std::move(path), std::nullopt, std::move(on_done), deadlines);
}

RequestHandle EngineClient::call_json(std::string method, std::string path,
                                      std::optional<nlohmann::json> body, JsonCallback on_done,
                                      RequestOptions deadlines) {
  return long_poll_json(std::move(method), std::move(path), std::move(body), nullptr,
                        std::move(on_done), deadlines);
}

RequestHandle EngineClient::long_poll_json(std::string method, std::string path,
                                           std::optional<nlohmann::json> body,
                                           std::function<void(int http_status)> on_headers,
                                           JsonCallback on_done, RequestOptions deadlines) {
  ExchangeCallbacks callbacks;
  if (on_headers) {
    callbacks.on_head = [on_headers = std::move(on_headers)](const HttpResponse& head) {
      on_headers(head.status);
      return false;  // buffer the body
    };
  }
  callbacks.on_done = [on_done = std::move(on_done)](Result<HttpResponse> response) {
    on_done(detail::to_json_response(std::move(response)));
  };
  return launch_exchange(*state_, json_request(*state_, std::move(method), path, body), deadlines,
                         std::move(callbacks));
}

RequestHandle EngineClient::stream_lines(HttpRequest request,
                                         std::function<void(std::string_view line)> on_line,
                                         std::function<void(Result<int>)> on_done,
                                         RequestOptions deadlines) {
  request.target = api_prefix() + request.target;
  struct LineState {
    detail::NdjsonSplitter splitter;
    std::function<void(std::string_view)> on_line;
  };
  auto lines = std::make_shared<LineState>();
  lines->on_line = std::move(on_line);

  ExchangeCallbacks callbacks;
  // Stream only successful bodies; an error body is buffered to read its message.
  callbacks.on_head = [](const HttpResponse& head) { return head.status < 400; };
  callbacks.on_body_piece = [lines](std::string_view piece) {
    lines->splitter.feed(piece, lines->on_line);
  };
  callbacks.on_done = [lines, on_done = std::move(on_done)](Result<HttpResponse> response) {
    if (!response) {
      on_done(response.error());
      return;
    }
    if (response.value().status >= 400) {
      on_done(detail::http_status_error(response.value()));
      return;
    }
    lines->splitter.finish(lines->on_line);
    on_done(response.value().status);
  };
  return launch_exchange(*state_, request, deadlines, std::move(callbacks));
}

std::unique_ptr<ExecStream> EngineClient::start_exec(std::string exec_id, ExecStartOptions options,
                                                     ExecStreamCallbacks callbacks) {
  HttpRequest request;
  request.method = "POST";
  request.target = api_prefix() + "/exec/" + url_encode(exec_id) + "/start";
  request.content_type = "application/json";
  request.body = json_text({{"Detach", false}, {"Tty", options.tty}});
  Result<std::string> bytes = detail::write_request(
      request, state_->address, state_->options.user_agent, ConnectionMode::kUpgrade);
  // The request is built from our own values and a URL-encoded id, so it always writes.
  auto connection = std::make_shared<detail::ExecConnection>(
      state_->loop, state_->address, options, bytes ? std::move(bytes).value() : std::string(),
      std::move(callbacks));
  detail::launch(connection);
  return std::make_unique<ExecStream>(connection);
}

}  // namespace vc::engine
