// http_listener.cpp — see http_listener.h.
#include "transport/http_listener.h"

#include <netdb.h>

#include <cstring>

#include <spdlog/spdlog.h>

namespace vc::transport {
namespace {

constexpr size_t kReadBufferBytes = 64 * 1024;
constexpr int kBacklog = 511;

// The first address `host` resolves to, with `port`.
Expected<sockaddr_storage> resolve(const std::string& host, uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const std::string name = host.size() > 2 && host.front() == '[' && host.back() == ']'
                               ? host.substr(1, host.size() - 2)
                               : host;
  const int status = getaddrinfo(name.c_str(), service.c_str(), &hints, &found);
  if (status != 0 || found == nullptr) {
    return Failure{-1, "cannot resolve the HTTP bind address '" + host + "': " +
                           gai_strerror(status)};
  }
  sockaddr_storage address{};
  std::memcpy(&address, found->ai_addr, found->ai_addrlen);
  freeaddrinfo(found);
  return address;
}

}  // namespace

HttpListener::HttpListener(uv_loop_t* loop, ConnectionLimits limits,
                           HttpConnection::RequestHandler handler)
    : loop_(loop), limits_(limits), on_request_(std::move(handler)), read_buffer_(kReadBufferBytes, '\0') {}

HttpListener::~HttpListener() {
  for (auto& [raw, connection] : connections_) connection->close();
}

Expected<std::unique_ptr<HttpListener>> HttpListener::listen(
    uv_loop_t* loop, const std::string& host, uint16_t port, ConnectionLimits limits,
    HttpConnection::RequestHandler on_request) {
  auto address = resolve(host, port);
  if (!address) return address.error();
  std::unique_ptr<HttpListener> listener(new HttpListener(loop, limits, std::move(on_request)));
  uv_tcp_init(loop, &listener->server_);
  listener->server_.data = listener.get();
  listener->open_ = true;
  const auto* socket_address = reinterpret_cast<const sockaddr*>(&address.value());
  int status = uv_tcp_bind(&listener->server_, socket_address, 0);
  if (status == 0) {
    status = uv_listen(reinterpret_cast<uv_stream_t*>(&listener->server_), kBacklog,
                       [](uv_stream_t* server, int result) {
                         auto* self = static_cast<HttpListener*>(server->data);
                         if (result == 0) self->accept_one();
                       });
  }
  if (status != 0) {
    const std::string message = "cannot listen for HTTP on " + host + ":" + std::to_string(port) +
                                ": " + uv_strerror(status) +
                                (status == UV_EADDRINUSE ? " (is another server using the port?)"
                                                         : "");
    // The handle must be closed before the listener goes; run the loop once for that.
    listener->close([] {});
    uv_run(loop, UV_RUN_NOWAIT);
    return Failure{-1, message};
  }
  sockaddr_storage bound{};
  int length = sizeof bound;
  uv_tcp_getsockname(&listener->server_, reinterpret_cast<sockaddr*>(&bound), &length);
  listener->port_ = ntohs(bound.ss_family == AF_INET6
                              ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                              : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return listener;
}

void HttpListener::accept_one() {
  auto connection = HttpConnection::accept(
      reinterpret_cast<uv_stream_t*>(&server_), limits_, read_buffer_, on_request_,
      [this](HttpConnection& closed) { connections_.erase(&closed); });
  if (!connection) {
    spdlog::warn("http: could not accept a connection");
    return;
  }
  connections_.emplace(connection.get(), connection);
}

void HttpListener::close(std::function<void()> done) {
  if (!open_) {
    if (done) done();
    return;
  }
  open_ = false;
  on_closed_ = std::move(done);
  auto connections = std::move(connections_);
  connections_.clear();
  for (auto& [raw, connection] : connections) connection->close();
  uv_close(reinterpret_cast<uv_handle_t*>(&server_), [](uv_handle_t* handle) {
    auto* self = static_cast<HttpListener*>(handle->data);
    if (auto on_closed = std::move(self->on_closed_)) on_closed();
  });
}

}  // namespace vc::transport
