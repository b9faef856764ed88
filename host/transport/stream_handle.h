// stream_handle.h — a libuv stream handle over an inherited file descriptor (stdin/stdout).
#pragma once

#include <memory>

#include <uv.h>

#include "common/failure.h"

namespace vc::transport {

// [loop-thread] Opens `fd` as the stream kind uv_guess_handle() reported: UV_NAMED_PIPE
// (pipes and unix sockets), UV_TCP or UV_TTY. The handle's memory belongs to the caller, but
// once this succeeded it may only be freed from the callback of uv_close().
// libuv never closes descriptors 0-2 when their handle is closed.
Expected<std::unique_ptr<uv_any_handle>> open_stream_handle(uv_loop_t* loop, int fd,
                                                           uv_handle_type type, bool readable);

}  // namespace vc::transport
