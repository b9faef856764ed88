// engine_socket.h — one client connection to the engine: a uv_pipe_t (unix socket) or a
// uv_tcp_t (plain TCP, names resolved with uv_getaddrinfo).
//
// Connect, read, write, half-close, close. Everything is reported to a SocketListener. The
// libuv handles live on the heap and are freed in their close callbacks, so the EngineSocket
// must stay alive until on_socket_closed() (the owning operation keeps itself alive until
// then). Loop thread only.
#pragma once

#include <uv.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "vc_engine/engine_address.h"

namespace vc::engine::detail {

class SocketListener {
 public:
  virtual ~SocketListener() = default;
  // The connect attempt ended: 0, or a libuv error (UV_ECONNREFUSED, UV_ENOENT, UV_EACCES,
  // UV_EAI_NONAME ...). After success, reading has started.
  virtual void on_socket_connected(int status) = 0;
  // Bytes arrived.
  virtual void on_socket_data(std::string_view bytes) = 0;
  // Reading ended: UV_EOF, or a libuv error (UV_ECONNRESET ...).
  virtual void on_socket_read_end(int status) = 0;
  // A write or the half-close failed (not reported once close() was called).
  virtual void on_socket_write_failed(int status) = 0;
  // After close(): every handle and request is gone; the socket may now be destroyed.
  virtual void on_socket_closed() = 0;
};

class EngineSocket {
 public:
  EngineSocket(uv_loop_t* loop, SocketListener& listener);
  ~EngineSocket();  // must only run after on_socket_closed() (or if connect() was never called)

  EngineSocket(const EngineSocket&) = delete;
  EngineSocket& operator=(const EngineSocket&) = delete;

  // Starts connecting; the result comes through on_socket_connected(). Call once.
  void connect(const EngineAddress& address);
  // Queues bytes; libuv writes them in order.
  void write(std::string bytes);
  // Half-closes (shutdown(SHUT_WR)) after the queued writes. Reading continues. Idempotent.
  void shutdown_write();
  // Closes everything; on_socket_closed() follows (possibly inside this call when nothing was
  // open). Idempotent.
  void close();

  bool connected() const { return connected_; }
  bool closing() const { return closing_; }

 private:
  struct StreamHandle;
  struct RetryTimer;
  struct ResolveRequest;
  struct WriteRequest;
  struct ShutdownRequest;

  void connect_unix();
  void retry_unix_connect_later();
  void connect_next_address();
  void on_connect_result(StreamHandle* handle, int status);
  void on_resolved(int status, addrinfo* addresses);
  void close_handle(StreamHandle* handle);
  // The completion of a write or a shutdown (Request is WriteRequest or ShutdownRequest, whose
  // `request` member is the libuv request): frees it and reports a failure unless the socket
  // is already closing. Loop thread.
  template <class Request, class UvRequest>
  static void on_write_side_done(UvRequest* request, int status);
  void release_one();

  uv_loop_t* loop_;
  SocketListener& listener_;
  StreamHandle* handle_ = nullptr;     // the current attempt or the connected stream
  RetryTimer* retry_timer_ = nullptr;  // unix: waits before connecting again (EAGAIN)
  std::string unix_path_;
  int unix_attempts_ = 0;
  ResolveRequest* resolve_ = nullptr;         // while uv_getaddrinfo runs
  std::vector<sockaddr_storage> candidates_;  // TCP: resolved addresses still to try
  std::size_t next_candidate_ = 0;
  int pending_ = 0;  // handles and requests that must report back before on_socket_closed()
  bool connected_ = false;
  bool closing_ = false;
  bool closed_reported_ = false;
  bool shutdown_requested_ = false;
  std::array<char, 64 * 1024> read_buffer_{};
};

}  // namespace vc::engine::detail
