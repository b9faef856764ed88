// stdio_transport.h — MCP's stdio transport: newline-delimited JSON-RPC on stdin/stdout.
//
// Reads stdin on the loop and hands every complete line to its handler; queues outgoing lines
// for stdout without blocking, in order. stdout carries nothing but these lines: logs go to
// stderr. The transport does not know JSON; the session parses and produces the lines.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include <uv.h>

#include "common/failure.h"
#include "transport/input_reader.h"
#include "transport/line_splitter.h"
#include "transport/output_writer.h"

namespace vc::transport {

struct StdioTransportOptions {
  int input_fd = 0;
  int output_fd = 1;
  size_t max_line_bytes = size_t{64} * 1024 * 1024;  // larger lines are refused, not buffered
};

// [loop-thread] for every member.
class StdioTransport {
 public:
  struct Handlers {
    std::function<void(std::string_view line)> on_line;
    // A line that exceeded max_line_bytes was discarded; `reason` says so in a sentence.
    std::function<void(const std::string& reason)> on_unreadable_line;
    // stdin reached EOF (or failed). A last line without "\n" has been delivered before.
    std::function<void()> on_end_of_input;
  };

  static Expected<std::unique_ptr<StdioTransport>> open(uv_loop_t* loop, Handlers handlers,
                                                        StdioTransportOptions options = {});
  ~StdioTransport();
  StdioTransport(const StdioTransport&) = delete;
  StdioTransport& operator=(const StdioTransport&) = delete;

  void start_reading();
  // Stops delivering lines (shutdown has begun). Output still flows.
  void stop_reading();
  // Queues `line` plus "\n" for stdout. `line` must not contain a newline.
  void send_line(std::string line);
  size_t queued_output_bytes() const;
  // Stops reading, lets queued output drain, releases both descriptors' handles, then runs
  // `done`. The transport may be destroyed from `done` on.
  void close(std::function<void()> done);

 private:
  StdioTransport(Handlers handlers, size_t max_line_bytes);
  void on_bytes(std::string_view bytes);
  void on_end();
  void part_closed();

  Handlers handlers_;
  size_t max_line_bytes_;
  LineSplitter splitter_;
  std::unique_ptr<InputReader> reader_;
  std::unique_ptr<OutputWriter> writer_;
  bool reading_ = false;
  int open_parts_ = 0;  // reader and writer not yet closed, during close()
  std::function<void()> close_done_;
};

}  // namespace vc::transport
