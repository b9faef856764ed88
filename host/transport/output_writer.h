// output_writer.h — writes to a file descriptor from the loop without ever blocking it.
//
// Writes are queued in order and completed asynchronously: uv_write for pipes, sockets and
// terminals; a serial chain of uv_fs_write calls for regular files. A client that stops
// reading makes the queue grow rather than the server stall.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include <uv.h>

#include "common/failure.h"

namespace vc::transport {

// [loop-thread] for every member.
class OutputWriter {
 public:
  static Expected<std::unique_ptr<OutputWriter>> open(uv_loop_t* loop, int fd);

  virtual ~OutputWriter() = default;
  // Queues `bytes` after everything queued before. After a write error (the reader went
  // away) further output is dropped; the error is logged once.
  virtual void write(std::string bytes) = 0;
  virtual size_t queued_bytes() const = 0;
  // Lets the queued writes finish (or fail), then releases the handle and runs `done`.
  virtual void close(std::function<void()> done) = 0;
};

}  // namespace vc::transport
