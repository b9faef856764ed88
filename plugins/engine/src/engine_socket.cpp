// engine_socket.cpp — connecting, reading and writing with libuv.
#include "engine_socket.h"

#include <algorithm>
#include <cstring>

namespace vc::engine::detail {

struct EngineSocket::StreamHandle {
  union {
    uv_pipe_t pipe;
    uv_tcp_t tcp;
  };
  uv_connect_t connect_request{};
  EngineSocket* owner = nullptr;

  StreamHandle() : pipe{} {}
  uv_handle_t* handle() { return reinterpret_cast<uv_handle_t*>(&pipe); }
  uv_stream_t* stream() { return reinterpret_cast<uv_stream_t*>(&pipe); }
};

struct EngineSocket::RetryTimer {
  uv_timer_t timer{};
  EngineSocket* owner = nullptr;
};

namespace {

// A unix socket's connect() fails with EAGAIN when the listener's backlog is full (a burst of
// concurrent requests); the listener is alive, so connecting again shortly is the right answer.
// The operation's connect timeout bounds the retries; this cap only guards a call without one.
constexpr int kMaxUnixConnectAttempts = 500;

std::uint64_t retry_delay_ms(int attempt) {
  return attempt < 5 ? 2u << attempt : 50u;
}

}  // namespace

struct EngineSocket::ResolveRequest {
  uv_getaddrinfo_t request{};
  EngineSocket* owner = nullptr;
};

struct EngineSocket::WriteRequest {
  uv_write_t request{};
  std::string bytes;
  EngineSocket* owner = nullptr;
};

struct EngineSocket::ShutdownRequest {
  uv_shutdown_t request{};
  EngineSocket* owner = nullptr;
};

template <class Request, class UvRequest>
void EngineSocket::on_write_side_done(UvRequest* request, int status) {
  auto* done = static_cast<Request*>(request->data);
  EngineSocket* owner = done->owner;
  delete done;
  if (status < 0 && !owner->closing_) owner->listener_.on_socket_write_failed(status);
}

EngineSocket::EngineSocket(uv_loop_t* loop, SocketListener& listener)
    : loop_(loop), listener_(listener) {}

EngineSocket::~EngineSocket() = default;

void EngineSocket::connect(const EngineAddress& address) {
  if (address.is_unix()) {
    unix_path_ = address.path();
    connect_unix();
    return;
  }
  resolve_ = new ResolveRequest;
  resolve_->owner = this;
  resolve_->request.data = resolve_;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  ++pending_;
  const std::string port = std::to_string(address.port());
  const int rc = uv_getaddrinfo(
      loop_, &resolve_->request,
      [](uv_getaddrinfo_t* request, int status, addrinfo* addresses) {
        auto* resolve = static_cast<ResolveRequest*>(request->data);
        EngineSocket* owner = resolve->owner;
        delete resolve;
        owner->on_resolved(status, addresses);
      },
      address.host().c_str(), port.c_str(), &hints);
  if (rc != 0) {
    delete resolve_;
    resolve_ = nullptr;
    --pending_;
    listener_.on_socket_connected(rc);
  }
}

void EngineSocket::connect_unix() {
  ++unix_attempts_;
  handle_ = new StreamHandle;
  handle_->owner = this;
  uv_pipe_init(loop_, &handle_->pipe, 0);
  handle_->pipe.data = handle_;
  ++pending_;
  handle_->connect_request.data = handle_;
  // The path length was checked when the address was parsed: libuv 1.44 would silently cut a
  // path longer than sun_path and connect to whatever the shorter path names.
  uv_pipe_connect(&handle_->connect_request, &handle_->pipe, unix_path_.c_str(),
                  [](uv_connect_t* request, int status) {
                    auto* handle = static_cast<StreamHandle*>(request->data);
                    handle->owner->on_connect_result(handle, status);
                  });
}

void EngineSocket::retry_unix_connect_later() {
  close_handle(handle_);
  handle_ = nullptr;
  if (retry_timer_ == nullptr) {
    retry_timer_ = new RetryTimer;
    retry_timer_->owner = this;
    retry_timer_->timer.data = retry_timer_;
    uv_timer_init(loop_, &retry_timer_->timer);
    ++pending_;
  }
  uv_timer_start(
      &retry_timer_->timer,
      [](uv_timer_t* timer) { static_cast<RetryTimer*>(timer->data)->owner->connect_unix(); },
      retry_delay_ms(unix_attempts_), 0);
}

void EngineSocket::on_resolved(int status, addrinfo* addresses) {
  resolve_ = nullptr;
  if (closing_) {
    uv_freeaddrinfo(addresses);
    release_one();  // may report on_socket_closed(), after which `this` may be gone
    return;
  }
  --pending_;  // not closing, so nothing to report
  if (status == 0) {
    for (addrinfo* entry = addresses; entry != nullptr; entry = entry->ai_next) {
      sockaddr_storage storage{};
      std::memcpy(&storage, entry->ai_addr,
                  std::min<std::size_t>(entry->ai_addrlen, sizeof storage));
      candidates_.push_back(storage);
    }
    // IPv4 first: "localhost" resolves to ::1 too, and engines usually listen on 127.0.0.1.
    std::stable_partition(candidates_.begin(), candidates_.end(),
                          [](const sockaddr_storage& a) { return a.ss_family == AF_INET; });
  }
  uv_freeaddrinfo(addresses);
  if (status != 0) {
    listener_.on_socket_connected(status);
    return;
  }
  if (candidates_.empty()) {
    listener_.on_socket_connected(UV_EAI_NONAME);
    return;
  }
  connect_next_address();
}

void EngineSocket::connect_next_address() {
  const sockaddr_storage& target = candidates_[next_candidate_++];
  handle_ = new StreamHandle;
  handle_->owner = this;
  uv_tcp_init(loop_, &handle_->tcp);
  handle_->tcp.data = handle_;
  ++pending_;
  handle_->connect_request.data = handle_;
  const int rc = uv_tcp_connect(&handle_->connect_request, &handle_->tcp,
                                reinterpret_cast<const sockaddr*>(&target),
                                [](uv_connect_t* request, int status) {
                                  auto* handle = static_cast<StreamHandle*>(request->data);
                                  handle->owner->on_connect_result(handle, status);
                                });
  if (rc != 0) on_connect_result(handle_, rc);
}

void EngineSocket::on_connect_result(StreamHandle* handle, int status) {
  if (closing_ || handle != handle_) return;  // cancelled by close(); the close callback frees it
  if (status == UV_EAGAIN && !unix_path_.empty() && unix_attempts_ < kMaxUnixConnectAttempts) {
    retry_unix_connect_later();
    return;
  }
  if (status != 0) {
    if (next_candidate_ < candidates_.size()) {
      // A failed TCP handle cannot be reused for the next address: close it, open another.
      close_handle(handle_);
      handle_ = nullptr;
      connect_next_address();
      return;
    }
    listener_.on_socket_connected(status);
    return;
  }
  connected_ = true;
  const int rc = uv_read_start(
      handle_->stream(),
      [](uv_handle_t* h, std::size_t, uv_buf_t* buffer) {
        EngineSocket* owner = static_cast<StreamHandle*>(h->data)->owner;
        buffer->base = owner->read_buffer_.data();
        buffer->len = owner->read_buffer_.size();
      },
      [](uv_stream_t* stream, ssize_t nread, const uv_buf_t* buffer) {
        EngineSocket* owner = static_cast<StreamHandle*>(stream->data)->owner;
        if (owner->closing_) return;
        if (nread > 0) {
          owner->listener_.on_socket_data(
              std::string_view(buffer->base, static_cast<std::size_t>(nread)));
        } else if (nread < 0) {
          uv_read_stop(stream);
          owner->listener_.on_socket_read_end(static_cast<int>(nread));
        }
      });
  listener_.on_socket_connected(rc);
}

void EngineSocket::write(std::string bytes) {
  if (closing_ || !connected_ || shutdown_requested_ || bytes.empty()) return;
  auto* request = new WriteRequest;
  request->bytes = std::move(bytes);
  request->owner = this;
  request->request.data = request;
  uv_buf_t buffer =
      uv_buf_init(request->bytes.data(), static_cast<unsigned>(request->bytes.size()));
  const int rc = uv_write(&request->request, handle_->stream(), &buffer, 1,
                          &on_write_side_done<WriteRequest, uv_write_t>);
  if (rc != 0) {
    delete request;
    listener_.on_socket_write_failed(rc);
  }
}

void EngineSocket::shutdown_write() {
  if (closing_ || !connected_ || shutdown_requested_) return;
  shutdown_requested_ = true;
  auto* request = new ShutdownRequest;
  request->owner = this;
  request->request.data = request;
  // libuv runs the shutdown after every write queued before it, so stdin is never cut short.
  const int rc = uv_shutdown(&request->request, handle_->stream(),
                             &on_write_side_done<ShutdownRequest, uv_shutdown_t>);
  if (rc != 0) {
    delete request;
    listener_.on_socket_write_failed(rc);
  }
}

void EngineSocket::close_handle(StreamHandle* handle) {
  if (uv_is_closing(handle->handle())) return;
  uv_close(handle->handle(), [](uv_handle_t* h) {
    auto* closed = static_cast<StreamHandle*>(h->data);
    EngineSocket* owner = closed->owner;
    delete closed;
    owner->release_one();
  });
}

void EngineSocket::close() {
  if (closing_) return;
  closing_ = true;
  // A resolve in flight cannot be stopped once the thread pool runs it; its callback then
  // arrives with the result, sees closing_ and only releases itself.
  if (resolve_ != nullptr) uv_cancel(reinterpret_cast<uv_req_t*>(&resolve_->request));
  if (handle_ != nullptr) close_handle(handle_);
  if (retry_timer_ != nullptr) {
    uv_close(reinterpret_cast<uv_handle_t*>(&retry_timer_->timer), [](uv_handle_t* h) {
      auto* timer = static_cast<RetryTimer*>(h->data);
      EngineSocket* owner = timer->owner;
      delete timer;
      owner->release_one();
    });
    retry_timer_ = nullptr;
  }
  if (pending_ == 0 && !closed_reported_) {
    closed_reported_ = true;
    listener_.on_socket_closed();
  }
}

void EngineSocket::release_one() {
  --pending_;
  if (closing_ && pending_ == 0 && !closed_reported_) {
    closed_reported_ = true;
    listener_.on_socket_closed();
  }
}

}  // namespace vc::engine::detail
