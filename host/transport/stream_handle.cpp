// stream_handle.cpp — see stream_handle.h.
#include "transport/stream_handle.h"

#include <string>

namespace vc::transport {

Expected<std::unique_ptr<uv_any_handle>> open_stream_handle(uv_loop_t* loop, int fd,
                                                           uv_handle_type type, bool readable) {
  auto handle = std::make_unique<uv_any_handle>();
  bool initialised = false;
  int error = 0;
  switch (type) {
    case UV_NAMED_PIPE:
      error = uv_pipe_init(loop, &handle->pipe, 0);
      initialised = error == 0;
      if (initialised) error = uv_pipe_open(&handle->pipe, fd);
      break;
    case UV_TCP:
      error = uv_tcp_init(loop, &handle->tcp);
      initialised = error == 0;
      if (initialised) error = uv_tcp_open(&handle->tcp, fd);
      break;
    case UV_TTY:
      error = uv_tty_init(loop, &handle->tty, fd, readable ? 1 : 0);
      initialised = error == 0;
      break;
    default:
      return Failure{-1, "file descriptor " + std::to_string(fd) + " is not a stream"};
  }
  if (error != 0) {
    if (initialised) {
      // The loop knows the handle now: it must be closed, and freed only in the callback.
      uv_close(&handle.release()->handle,
               [](uv_handle_t* h) { delete reinterpret_cast<uv_any_handle*>(h); });
    }
    return Failure{-1, "cannot open file descriptor " + std::to_string(fd) + ": " +
                           uv_strerror(error)};
  }
  return handle;
}

}  // namespace vc::transport
