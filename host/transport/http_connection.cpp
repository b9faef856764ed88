// http_connection.cpp — see http_connection.h.
#include "transport/http_connection.h"

#include <cstdio>

#include <spdlog/spdlog.h>

#include "common/ascii_text.h"

namespace vc::transport {
namespace {

HttpConnection* owner_of(llhttp_t* parser) { return static_cast<HttpConnection*>(parser->data); }

std::string describe_peer(const uv_tcp_t& tcp) {
  sockaddr_storage address{};
  int length = sizeof address;
  if (uv_tcp_getpeername(&tcp, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "?";
  char host[64] = "?";
  int port = 0;
  if (address.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    uv_ip4_name(v4, host, sizeof host);
    port = ntohs(v4->sin_port);
    return std::string(host) + ":" + std::to_string(port);
  }
  const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
  uv_ip6_name(v6, host, sizeof host);
  port = ntohs(v6->sin6_port);
  return "[" + std::string(host) + "]:" + std::to_string(port);
}

struct WriteRequest {
  uv_write_t request{};
  std::string data;
  std::shared_ptr<HttpConnection> connection;
};

}  // namespace

// --- lifetime ----------------------------------------------------------------------------

HttpConnection::HttpConnection(const ConnectionLimits& limits, std::string& read_buffer,
                               RequestHandler on_request, ClosedHandler on_closed)
    : limits_(limits),
      read_buffer_(read_buffer),
      on_request_(std::move(on_request)),
      on_closed_(std::move(on_closed)) {
  llhttp_settings_init(&settings_);
  settings_.on_message_begin = &HttpConnection::on_message_begin;
  settings_.on_method_complete = &HttpConnection::on_method_complete;
  settings_.on_url = &HttpConnection::on_url;
  settings_.on_header_field = &HttpConnection::on_header_field;
  settings_.on_header_value = &HttpConnection::on_header_value;
  settings_.on_headers_complete = &HttpConnection::on_headers_complete;
  settings_.on_body = &HttpConnection::on_body;
  settings_.on_message_complete = &HttpConnection::on_message_complete;
  llhttp_init(&parser_, HTTP_REQUEST, &settings_);
  parser_.data = this;
}

HttpConnection::~HttpConnection() = default;

std::shared_ptr<HttpConnection> HttpConnection::accept(uv_stream_t* server,
                                                       const ConnectionLimits& limits,
                                                       std::string& read_buffer,
                                                       RequestHandler on_request,
                                                       ClosedHandler on_closed) {
  std::shared_ptr<HttpConnection> connection(
      new HttpConnection(limits, read_buffer, std::move(on_request), std::move(on_closed)));
  if (!connection->start(server)) return nullptr;
  return connection;
}

bool HttpConnection::start(uv_stream_t* server) {
  uv_loop_t* loop = server->loop;
  uv_tcp_init(loop, &tcp_);
  uv_timer_init(loop, &timer_);
  tcp_.data = this;
  timer_.data = this;
  handles_open_ = 2;
  if (uv_accept(server, reinterpret_cast<uv_stream_t*>(&tcp_)) != 0) {
    close();
    return false;
  }
  uv_tcp_nodelay(&tcp_, 1);
  peer_ = describe_peer(tcp_);
  const int started = uv_read_start(
      reinterpret_cast<uv_stream_t*>(&tcp_),
      [](uv_handle_t* handle, size_t, uv_buf_t* buffer) {
        auto* self = static_cast<HttpConnection*>(handle->data);
        buffer->base = self->read_buffer_.data();
        buffer->len = self->read_buffer_.size();
      },
      [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buffer) {
        auto* self = static_cast<HttpConnection*>(stream->data);
        if (nread < 0) {
          self->close();  // EOF or an error: the peer is gone
          return;
        }
        if (nread == 0) return;
        auto keep = self->shared_from_this();
        self->pending_input_.append(buffer->base, static_cast<size_t>(nread));
        if (self->pending_input_.size() > self->limits_.max_header_bytes + self->limits_.max_body_bytes) {
          self->close();  // a client pipelining far ahead of the answers
          return;
        }
        self->drain();
      });
  if (started != 0) {
    close();
    return false;
  }
  arm_timer(limits_.idle_timeout_ms);
  return true;
}

void HttpConnection::close() {
  if (closing_) return;
  closing_ = true;
  self_while_closing_ = shared_from_this();
  auto on_handle_closed = [](uv_handle_t* handle) {
    auto* self = static_cast<HttpConnection*>(handle->data);
    if (--self->handles_open_ == 0) {
      auto keep = std::move(self->self_while_closing_);  // may be the last reference
      (void)keep;
    }
  };
  uv_close(reinterpret_cast<uv_handle_t*>(&timer_), on_handle_closed);
  uv_close(reinterpret_cast<uv_handle_t*>(&tcp_), on_handle_closed);
  auto callbacks = std::move(close_callbacks_);
  close_callbacks_.clear();
  for (auto& callback : callbacks) callback();
  if (on_closed_) on_closed_(*this);
}

void HttpConnection::arm_timer(uint64_t timeout_ms) {
  if (closing_) return;
  uv_timer_start(
      &timer_,
      [](uv_timer_t* timer) {
        auto* self = static_cast<HttpConnection*>(timer->data);
        spdlog::debug("http: dropping {}: {}", self->peer_,
                      self->request_.method.empty() && self->header_bytes_ == 0
                          ? "idle keep-alive connection"
                          : "request headers too slow");
        self->close();
      },
      timeout_ms, 0);
}

// --- parsing -----------------------------------------------------------------------------

void HttpConnection::drain() {
  if (draining_) return;  // the outer drain() continues with what is left
  draining_ = true;
  auto keep = shared_from_this();
  while (!closing_ && state_ == State::reading && !pending_input_.empty()) {
    const llhttp_errno_t result =
        llhttp_execute(&parser_, pending_input_.data(), pending_input_.size());
    if (result == HPE_OK) {
      pending_input_.clear();
      break;
    }
    if (result == HPE_PAUSED) {
      const char* stop = llhttp_get_error_pos(&parser_);
      pending_input_.erase(0, static_cast<size_t>(stop - pending_input_.data()));
      llhttp_resume(&parser_);
      deliver_request();
      continue;
    }
    reject(reject_status_ != 0 ? reject_status_ : 400);
    break;
  }
  draining_ = false;
}

void HttpConnection::deliver_request() {
  state_ = State::responding;
  uv_timer_stop(&timer_);
  keep_alive_ = llhttp_should_keep_alive(&parser_) != 0;
  chunked_stream_ = parser_.http_major > 1 || (parser_.http_major == 1 && parser_.http_minor >= 1);
  HttpRequest request = std::move(request_);
  request_ = HttpRequest();
  answering_head_ = request.method == "HEAD";
  header_bytes_ = 0;
  const auto question = request.target.find('?');
  request.path = request.target.substr(0, question);
  if (question != std::string::npos) request.query = request.target.substr(question + 1);
  if (on_request_) on_request_(shared_from_this(), std::move(request));
}

void HttpConnection::reject(int status) {
  HttpResponse response = HttpResponse::json(
      status, std::string(R"({"error":")") + reason_phrase(status) + "\"}");
  answering_head_ = request_.method == "HEAD";
  state_ = State::responding;
  respond(response, /*close_after=*/true);
}

bool HttpConnection::count_header_bytes(size_t length) {
  header_bytes_ += length;
  if (header_bytes_ <= limits_.max_header_bytes) return true;
  reject_status_ = 431;
  return false;
}

int HttpConnection::on_message_begin(llhttp_t* parser) {
  auto* self = owner_of(parser);
  self->request_ = HttpRequest();
  self->header_bytes_ = 0;
  self->header_value_last_ = false;
  self->reject_status_ = 0;
  self->arm_timer(self->limits_.header_timeout_ms);
  return 0;
}

int HttpConnection::on_url(llhttp_t* parser, const char* at, size_t length) {
  auto* self = owner_of(parser);
  if (!self->count_header_bytes(length)) return -1;
  self->request_.target.append(at, length);
  return 0;
}

int HttpConnection::on_header_field(llhttp_t* parser, const char* at, size_t length) {
  auto* self = owner_of(parser);
  if (!self->count_header_bytes(length)) return -1;
  auto& headers = self->request_.headers;
  if (headers.empty() || self->header_value_last_) headers.emplace_back();
  headers.back().first += ascii_lower(std::string_view(at, length));
  self->header_value_last_ = false;
  return 0;
}

int HttpConnection::on_header_value(llhttp_t* parser, const char* at, size_t length) {
  auto* self = owner_of(parser);
  if (!self->count_header_bytes(length)) return -1;
  if (self->request_.headers.empty()) return -1;
  self->request_.headers.back().second.append(at, length);
  self->header_value_last_ = true;
  return 0;
}

// Known from here on, so that a request rejected later (431, 413) is answered as its method
// requires: no content for a HEAD.
int HttpConnection::on_method_complete(llhttp_t* parser) {
  owner_of(parser)->request_.method =
      llhttp_method_name(static_cast<llhttp_method_t>(parser->method));
  return 0;
}

int HttpConnection::on_headers_complete(llhttp_t* parser) {
  auto* self = owner_of(parser);
  // Headers are in: the body has the idle timeout, and the handler all the time it needs.
  self->arm_timer(self->limits_.idle_timeout_ms);
  if ((parser->flags & F_CONTENT_LENGTH) != 0 &&
      parser->content_length > self->limits_.max_body_bytes) {
    self->reject_status_ = 413;
    return -1;
  }
  return 0;
}

int HttpConnection::on_body(llhttp_t* parser, const char* at, size_t length) {
  auto* self = owner_of(parser);
  if (self->request_.body.size() + length > self->limits_.max_body_bytes) {
    self->reject_status_ = 413;
    return -1;
  }
  self->request_.body.append(at, length);
  return 0;
}

int HttpConnection::on_message_complete(llhttp_t*) {
  return HPE_PAUSED;  // one request at a time: drain() delivers it
}

// --- answering ---------------------------------------------------------------------------

void HttpConnection::respond(const HttpResponse& response, bool close_after) {
  if (closing_ || state_ != State::responding) return;
  const bool close_connection = close_after || !keep_alive_;
  std::string head = "HTTP/1.1 " + std::to_string(response.status) + " " +
                     reason_phrase(response.status) + "\r\n";
  for (const auto& [name, value] : response.headers) head += name + ": " + value + "\r\n";
  head += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  head += "Date: " + http_date() + "\r\n";
  if (close_connection) head += "Connection: close\r\n";
  head += "\r\n";
  // A response to HEAD carries the headers GET would, Content-Length included, and never
  // content (RFC 9110 §9.3.2): a client reads no body after it.
  if (!answering_head_) head += response.body;
  write(std::move(head));
  finish_response(close_connection);
}

void HttpConnection::begin_stream(int status, const HeaderList& headers) {
  if (closing_ || state_ != State::responding) return;
  std::string head =
      "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
  for (const auto& [name, value] : headers) head += name + ": " + value + "\r\n";
  head += "Date: " + http_date() + "\r\n";
  if (chunked_stream_) {
    head += "Transfer-Encoding: chunked\r\n";
  } else {
    head += "Connection: close\r\n";  // an HTTP/1.0 stream ends with the connection
    keep_alive_ = false;
  }
  head += "\r\n";
  state_ = State::streaming;
  write(std::move(head));
}

void HttpConnection::write_stream(std::string_view data) {
  if (closing_ || state_ != State::streaming || data.empty()) return;
  if (!chunked_stream_) {
    write(std::string(data));
    return;
  }
  char size[32];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  std::string chunk = size;
  chunk.append(data);
  chunk += "\r\n";
  write(std::move(chunk));
}

void HttpConnection::end_stream() {
  if (closing_ || state_ != State::streaming) return;
  if (chunked_stream_) write("0\r\n\r\n");
  finish_response(!keep_alive_);
}

void HttpConnection::finish_response(bool close_connection) {
  if (close_connection) {
    close_when_written_ = true;
    if (writes_in_flight_ == 0) close();
    return;
  }
  state_ = State::reading;
  // The close callbacks belong to the response that just finished: a keep-alive connection
  // serves many, and keeping every one's callback would grow without bound.
  close_callbacks_.clear();
  arm_timer(limits_.idle_timeout_ms);
  if (!draining_ && !pending_input_.empty()) {
    // Parse what the client sent meanwhile on a later turn, not inside the handler's call.
    auto self = shared_from_this();
    uv_timer_start(
        &timer_,
        [](uv_timer_t* timer) {
          auto* connection = static_cast<HttpConnection*>(timer->data);
          connection->arm_timer(connection->limits_.idle_timeout_ms);
          connection->drain();
        },
        0, 0);
  }
}

void HttpConnection::write(std::string data) {
  if (closing_) return;
  auto* request = new WriteRequest;
  request->data = std::move(data);
  request->connection = shared_from_this();
  request->request.data = request;
  uv_buf_t buffer = uv_buf_init(request->data.data(), static_cast<unsigned>(request->data.size()));
  ++writes_in_flight_;
  const int status = uv_write(&request->request, reinterpret_cast<uv_stream_t*>(&tcp_), &buffer, 1,
                              [](uv_write_t* done, int result) {
                                auto* finished = static_cast<WriteRequest*>(done->data);
                                auto connection = std::move(finished->connection);
                                delete finished;
                                --connection->writes_in_flight_;
                                if (result != 0 ||
                                    (connection->close_when_written_ &&
                                     connection->writes_in_flight_ == 0)) {
                                  connection->close();
                                }
                              });
  if (status != 0) {
    --writes_in_flight_;
    delete request;
    close();
  }
}

}  // namespace vc::transport
