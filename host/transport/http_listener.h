// http_listener.h — a listening TCP socket and the connections it accepted.
//
// [loop-thread] for every member.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include <uv.h>

#include "common/failure.h"
#include "transport/http_connection.h"

namespace vc::transport {

class HttpListener {
 public:
  // Binds `host` (an IP address, or a name resolved once now) and `port`, and listens.
  // `on_request` gets every complete request of every connection.
  static Expected<std::unique_ptr<HttpListener>> listen(uv_loop_t* loop, const std::string& host,
                                                        uint16_t port, ConnectionLimits limits,
                                                        HttpConnection::RequestHandler on_request);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Stops accepting and closes every connection; `done` runs once the socket is closed.
  void close(std::function<void()> done);

  size_t connection_count() const { return connections_.size(); }
  // The port actually bound (useful with port 0).
  uint16_t port() const { return port_; }

 private:
  HttpListener(uv_loop_t* loop, ConnectionLimits limits, HttpConnection::RequestHandler handler);
  void accept_one();

  uv_loop_t* loop_;
  uv_tcp_t server_{};
  ConnectionLimits limits_;
  HttpConnection::RequestHandler on_request_;
  std::string read_buffer_;  // shared by the connections: 64 KiB, not 64 KiB each
  std::unordered_map<HttpConnection*, std::shared_ptr<HttpConnection>> connections_;
  uint16_t port_ = 0;
  bool open_ = false;
  std::function<void()> on_closed_;
};

}  // namespace vc::transport
