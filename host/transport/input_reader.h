// input_reader.h — reads a file descriptor on the loop, whatever it turns out to be.
//
// stdin can be a pipe or socket (an MCP client spawning us), a terminal (someone typing), or
// a regular file or character device (`< requests.jsonl`, `< /dev/null`). Pipes, sockets and
// terminals are uv streams; files are read with uv_fs_read on the thread pool, because
// epoll cannot watch them.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include <uv.h>

#include "common/failure.h"

namespace vc::transport {

// [loop-thread] for every member.
class InputReader {
 public:
  struct Handlers {
    std::function<void(std::string_view bytes)> on_bytes;
    // End of input: EOF, or a read error (logged). Called at most once, never after stop().
    std::function<void()> on_end;
  };

  // Opens `fd` for reading. Fails for descriptors libuv cannot read (closed, UDP, ...).
  static Expected<std::unique_ptr<InputReader>> open(uv_loop_t* loop, int fd, Handlers handlers);

  virtual ~InputReader() = default;
  virtual void start() = 0;
  // No more on_bytes / on_end after this.
  virtual void stop() = 0;
  // Stops and releases the descriptor's handle; `done` runs once nothing refers to this
  // object any more, and it may then be destroyed.
  virtual void close(std::function<void()> done) = 0;
};

}  // namespace vc::transport
