// api_websocket.cpp — connect, upgrade, the read loop, the bounded write queue, the one end.
// Thread rule: see api_websocket.h; members marked [loop] in the header run on the loop thread.
#include "api_websocket.h"

#include <algorithm>
#include <cctype>

#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>
#include <boost/beast/websocket/ssl.hpp>
#include <boost/beast/websocket/stream.hpp>
#include <nlohmann/json.hpp>

#include "api_connection.h"

namespace vc::kubernetes {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;
using error_code = boost::system::error_code;

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string joined;
  for (const auto& item : items) {
    if (!joined.empty()) joined += separator;
    joined += item;
  }
  return joined;
}

// "host:port" for the Host header, with brackets around an IPv6 address.
std::string host_header(const ServerUrl& url) {
  const bool ipv6 = url.host.find(':') != std::string::npos;
  return (ipv6 ? "[" + url.host + "]" : url.host) + ":" + url.port;
}

// The sentence part of a refused upgrade's body: the Status's message, else the body's text.
struct RefusalText {
  std::string message;
  std::string reason;
};
RefusalText refusal_text(const websocket::response_type& response) {
  const std::string& body = response.body();
  const auto status = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (status.is_object()) {
    RefusalText text;
    if (auto it = status.find("message"); it != status.end() && it->is_string()) {
      text.message = it->get<std::string>();
    }
    if (auto it = status.find("reason"); it != status.end() && it->is_string()) {
      text.reason = it->get<std::string>();
    }
    if (!text.message.empty()) return text;
  }
  std::string trimmed = body;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) {
    trimmed.pop_back();
  }
  if (!trimmed.empty()) return {trimmed, ""};
  return {"the server answered HTTP " + std::to_string(response.result_int()) + " " +
              std::string(response.reason()),
          ""};
}

// Whether a read's error is the connection's ordinary end rather than a failure.
bool is_orderly_end(const error_code& error) {
  return error == websocket::error::closed || error == asio::error::eof ||
         error == asio::ssl::error::stream_truncated;
}

std::string seconds_text(std::chrono::milliseconds duration) {
  const auto tenths = duration.count() / 100;
  std::string text = std::to_string(tenths / 10);
  if (tenths % 10 != 0) text += "." + std::to_string(tenths % 10);
  return text + " s";
}

// A sentence that follows "<subject>: " starts in lower case ("Cannot reach" -> "cannot reach").
std::string continue_sentence(std::string text) {
  if (text.size() > 1 && std::isupper(static_cast<unsigned char>(text[0])) &&
      std::islower(static_cast<unsigned char>(text[1]))) {
    text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  }
  while (!text.empty() && text.back() == '.') text.pop_back();
  return text;
}

// Beast's limits: `handshake` for the upgrade and the close, the idle timeout with its pings.
websocket::stream_base::timeout stream_timeouts(const ApiWebSocketRequest& request,
                                                std::chrono::milliseconds handshake) {
  websocket::stream_base::timeout timeouts{};
  timeouts.handshake_timeout = handshake;
  const bool idle_limit = request.idle_timeout.count() > 0;
  timeouts.idle_timeout = idle_limit ? websocket::stream_base::duration(request.idle_timeout)
                                     : websocket::stream_base::none();
  timeouts.keep_alive_pings = idle_limit;
  return timeouts;
}

}  // namespace

std::string escape_url_component(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string escaped;
  escaped.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    if (unreserved) {
      escaped.push_back(c);
    } else {
      escaped.push_back('%');
      escaped.push_back(kHex[byte >> 4]);
      escaped.push_back(kHex[byte & 0x0f]);
    }
  }
  return escaped;
}

struct ApiWebSocket::Connection {
  Connection(asio::io_context& io, std::shared_ptr<asio::ssl::context> tls_context, ServerUrl url)
      : tls(std::move(tls_context)), ws(io, *tls), server(std::move(url)) {}

  std::shared_ptr<asio::ssl::context> tls;  // outlives ws, which uses it
  websocket::stream<TlsStream> ws;
  ServerUrl server;
  beast::flat_buffer incoming;
  websocket::response_type upgrade_response;
  std::chrono::steady_clock::time_point deadline;  // of connect + TLS + upgrade
  bool finished = false;                            // loop-thread view of the end
};

ApiWebSocket::ApiWebSocket(Key, ApiLoop& loop, ApiEndpoint endpoint, ApiWebSocketRequest request,
                           ApiWebSocketHandlers handlers)
    : loop_(loop),
      endpoint_(std::move(endpoint)),
      request_(std::move(request)),
      handlers_(std::move(handlers)) {}

ApiWebSocket::~ApiWebSocket() = default;

std::shared_ptr<ApiWebSocket> ApiWebSocket::create(ApiLoop& loop, const ApiEndpoint& endpoint,
                                                   ApiWebSocketRequest request,
                                                   ApiWebSocketHandlers handlers) {
  return std::make_shared<ApiWebSocket>(Key{}, loop, endpoint, std::move(request),
                                        std::move(handlers));
}

void ApiWebSocket::connect() {
  auto self = shared_from_this();
  if (!endpoint_.credentials) {
    loop_.post([self] {
      self->finish(
          self->failure(ApiErrorKind::credentials, "the endpoint has no credential source"));
    });
    return;
  }
  auto credentials = endpoint_.credentials->current();
  if (!credentials) {
    loop_.post([self, error = credentials.error().message] {
      self->finish(self->failure(ApiErrorKind::credentials,
                                 "the credentials of " + self->endpoint_.origin +
                                     " are not usable: " + continue_sentence(error)));
    });
    return;
  }
  loop_.post([self, credentials = std::move(credentials).value()]() mutable {
    self->start(std::move(credentials));
  });
}

ApiError ApiWebSocket::failure(ApiErrorKind kind, const std::string& what, int http_status,
                               std::string reason) const {
  std::string sentence = request_.subject + ": " + bounded_quote(continue_sentence(what), 600);
  if (sentence.back() != '?') sentence += ".";  // "... Is the cluster running?" ends already
  return ApiError{kind, http_status, std::move(reason), std::move(sentence)};
}

void ApiWebSocket::start(Credentials credentials) {
  if (connection_ || ended_) return;
  auto url = parse_server_url(endpoint_.server);
  if (!url) return finish(failure(ApiErrorKind::unreachable, url.error().message));
  auto tls = make_tls_context(endpoint_, credentials);
  if (!tls) return finish(failure(tls.error().kind, tls.error().message));
  connection_ = std::make_unique<Connection>(loop_.context(), std::move(tls).value(),
                                             std::move(url).value());
  connection_->deadline = std::chrono::steady_clock::now() + request_.connect_timeout;

  auto& ws = connection_->ws;
  ws.binary(true);
  ws.auto_fragment(false);  // the kubelet takes each frame for a whole message
  ws.set_option(websocket::stream_base::decorator(
      [token = credentials.bearer_token,
       protocols = join(request_.subprotocols, ", ")](websocket::request_type& upgrade) {
        upgrade.set(http::field::user_agent, "mcp-virtual-computer");
        if (!token.empty()) upgrade.set(http::field::authorization, "Bearer " + token);
        if (!protocols.empty()) upgrade.set(http::field::sec_websocket_protocol, protocols);
      }));

  ConnectRequest connect;
  connect.url = connection_->server;
  connect.tls_server_name = endpoint_.tls_server_name;
  connect.verify_peer = !endpoint_.insecure_skip_tls_verify;
  connect.timeout = request_.connect_timeout;
  connect.cancelled = [weak = weak_from_this()] {
    auto self = weak.lock();
    return !self || self->connection_->finished;
  };
  // The TLS stream lives inside the WebSocket stream; this pointer shares ownership of `this`.
  std::shared_ptr<TlsStream> tls_stream(shared_from_this(), &ws.next_layer());
  async_connect_tls(std::move(tls_stream), std::move(connect),
                    [self = shared_from_this()](ApiExpected<void> connected) {
                      if (self->connection_->finished) return;
                      if (!connected) {
                        const ApiError& error = connected.error();
                        return self->finish(self->failure(error.kind, error.message));
                      }
                      self->upgrade();
                    });
}

void ApiWebSocket::upgrade() {
  auto& connection = *connection_;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      connection.deadline - std::chrono::steady_clock::now());
  connection.ws.set_option(stream_timeouts(request_, std::max(left, std::chrono::milliseconds(1))));

  connection.ws.async_handshake(
      connection.upgrade_response, host_header(connection.server),
      connection.server.base_path + request_.target,
      [self = shared_from_this()](const error_code& error) {
        auto& response = self->connection_->upgrade_response;
        if (self->connection_->finished) return;
        if (error == websocket::error::upgrade_declined) {
          const int status = static_cast<int>(response.result_int());
          RefusalText text = refusal_text(response);
          if (status == 401) {
            self->endpoint_.credentials->invalidate();
            text.message = "the API server did not accept the credentials of " +
                           self->endpoint_.origin + " (" + bounded_quote(text.message, 200) + ")";
          }
          return self->finish(self->failure(api_error_kind_for_status(status), text.message,
                                            status, text.reason));
        }
        if (error == beast::error::timeout) {
          return self->finish(self->failure(
              ApiErrorKind::timeout, "the API server at " + self->connection_->server.text +
                                         " did not answer within " +
                                         seconds_text(self->request_.connect_timeout)));
        }
        if (error) {
          return self->finish(self->failure(
              ApiErrorKind::protocol, "the API server at " + self->connection_->server.text +
                                          " did not upgrade the connection to a WebSocket (" +
                                          error.message() + ")"));
        }
        self->on_upgraded(std::string(response[http::field::sec_websocket_protocol]));
      });
}

void ApiWebSocket::on_upgraded(const std::string& subprotocol) {
  open_ = true;
  connection_->upgrade_response = {};
  // The handshake limit was what was left of connect_timeout; a close gets all of it.
  auto timeouts = stream_timeouts(request_, request_.connect_timeout);
  connection_->ws.set_option(timeouts);
  call_handler([&] {
    if (handlers_.on_open) handlers_.on_open(subprotocol);
  });
  read_next();
  write_next();
}

void ApiWebSocket::read_next() {
  if (!open_ || reading_ || paused_ || connection_->finished) return;
  reading_ = true;
  connection_->ws.async_read(
      connection_->incoming, [self = shared_from_this()](const error_code& error, std::size_t) {
        self->reading_ = false;
        auto& connection = *self->connection_;
        if (connection.finished) return;
        if (error) {
          // The server's close frame ends the stream, however answering it went: the kubelet
          // closes its socket right after sending it, so the answer often meets a broken pipe.
          const bool server_closed = connection.ws.reason().code != websocket::close_code::none;
          if (server_closed || is_orderly_end(error)) return self->finish(ApiExpected<void>());
          if (error == beast::error::timeout) {
            return self->finish(self->failure(
                ApiErrorKind::timeout, "nothing arrived from the API server for " +
                                           seconds_text(self->request_.idle_timeout) +
                                           ", not even the answer to a ping"));
          }
          return self->finish(self->failure(ApiErrorKind::unreachable,
                                            "the connection broke: " + error.message()));
        }
        const auto data = connection.incoming.cdata();
        const std::string_view message(static_cast<const char*>(data.data()), data.size());
        self->call_handler([&] {
          if (self->handlers_.on_message) self->handlers_.on_message(message);
        });
        connection.incoming.consume(connection.incoming.size());
        self->read_next();
      });
}

WriteAdmission ApiWebSocket::send(std::string message, bool bounded) {
  std::vector<std::string> messages;
  messages.push_back(std::move(message));
  return send(std::move(messages), bounded);
}

WriteAdmission ApiWebSocket::send(std::vector<std::string> messages, bool bounded) {
  std::size_t bytes = 0;
  for (const auto& message : messages) bytes += message.size();
  {
    std::lock_guard lock(mutex_);
    if (closing_) return WriteAdmission::ended;
    if (bounded && bytes > request_.max_queued_bytes) return WriteAdmission::too_big;
    if (bounded && queued_bytes_ + bytes > request_.max_queued_bytes) {
      refused_since_drain_ = true;
      return WriteAdmission::full;
    }
    queued_bytes_ += bytes;
    for (auto& message : messages) queue_.push_back(std::move(message));
  }
  loop_.post([self = shared_from_this()] { self->write_next(); });
  return WriteAdmission::queued;
}

void ApiWebSocket::write_next() {
  if (!open_ || writing_ || connection_->finished) return;
  bool drained = false;
  {
    std::lock_guard lock(mutex_);
    if (queue_.empty()) {
      drained = refused_since_drain_ && queued_bytes_ == 0;
      if (drained) refused_since_drain_ = false;
    } else {
      writing_message_ = std::move(queue_.front());
      queue_.pop_front();
      writing_ = true;
    }
  }
  if (!writing_) {
    if (drained) {
      call_handler([&] {
        if (handlers_.on_drained) handlers_.on_drained();
      });
    }
    bool close_now = false;
    {
      std::lock_guard lock(mutex_);
      close_now = closing_ && queue_.empty() && !close_sent_;
    }
    if (close_now && open_) close_when_written();
    return;
  }
  connection_->ws.async_write(
      asio::buffer(writing_message_),
      [self = shared_from_this()](const error_code& error, std::size_t) {
        self->writing_ = false;
        {
          std::lock_guard lock(self->mutex_);
          self->queued_bytes_ -= self->writing_message_.size();
        }
        self->writing_message_.clear();
        if (self->connection_->finished) return;
        if (error) {
          // The read side sees the server's close and reports the end as it is.
          if (error == websocket::error::closed) return;
          return self->finish(self->failure(
              ApiErrorKind::unreachable, "sending to the API server failed: " + error.message()));
        }
        self->write_next();
      });
}

void ApiWebSocket::close() {
  {
    std::lock_guard lock(mutex_);
    if (closing_) return;
    closing_ = true;
  }
  loop_.post([self = shared_from_this()] { self->write_next(); });
}

void ApiWebSocket::close_when_written() {
  close_sent_ = true;
  connection_->ws.async_close(websocket::close_code::normal,
                              [self = shared_from_this()](const error_code& error) {
                                if (self->connection_->finished) return;
                                if (error && !is_orderly_end(error)) {
                                  return self->finish(self->failure(
                                      ApiErrorKind::unreachable,
                                      "closing the connection failed: " + error.message()));
                                }
                                self->finish(ApiExpected<void>());
                              });
}

void ApiWebSocket::cancel() {
  loop_.post([self = shared_from_this()] {
    self->cancelled_ = true;
    self->finish(self->failure(ApiErrorKind::cancelled, "it was cancelled"));
  });
}

void ApiWebSocket::pause_receiving() {
  loop_.post([self = shared_from_this()] { self->paused_ = true; });
}

void ApiWebSocket::resume_receiving() {
  loop_.post([self = shared_from_this()] {
    self->paused_ = false;
    self->read_next();
  });
}

void ApiWebSocket::end(ApiExpected<void> result) { finish(std::move(result)); }

void ApiWebSocket::finish(ApiExpected<void> result) {
  {
    std::lock_guard lock(mutex_);
    if (ended_) return;
    ended_ = true;
    closing_ = true;
    queue_.clear();
  }
  open_ = false;
  if (connection_) {
    connection_->finished = true;
    error_code ignored;
    beast::get_lowest_layer(connection_->ws).socket().close(ignored);
  }
  // The handlers may own whoever owns this stream: drop them now, so that no cycle outlives
  // the end — but not while one of them is running (it called end()); call_handler() drops
  // them when it returns.
  auto on_end = std::move(handlers_.on_end);
  if (handler_depth_ == 0) handlers_ = {};
  if (on_end) on_end(std::move(result));
}

template <class Call>
void ApiWebSocket::call_handler(Call call) {
  ++handler_depth_;
  call();
  --handler_depth_;
  if (handler_depth_ == 0 && connection_finished()) handlers_ = {};
}

bool ApiWebSocket::connection_finished() const {
  std::lock_guard lock(mutex_);
  return ended_;
}

}  // namespace vc::kubernetes
