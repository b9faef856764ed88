// line_splitter.h — cuts a byte stream into newline-delimited messages.
//
// MCP's stdio transport sends one JSON-RPC message per line. Lines end with "\n"; a "\r"
// before it is dropped (clients on Windows send CRLF). Empty lines are skipped. A line that
// grows past the limit is reported once, as soon as it crosses the limit, and its remaining
// bytes are discarded up to the next newline without being buffered: a client sending a
// runaway line cannot make the server hold it in memory.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace vc::transport {

class LineSplitter {
 public:
  using LineFn = std::function<void(std::string_view line)>;
  using OversizeFn = std::function<void()>;

  LineSplitter(size_t max_line_bytes, LineFn on_line, OversizeFn on_oversized_line);

  // Feeds the next chunk of the stream; calls the handlers for every line it completes.
  void feed(std::string_view bytes);
  // End of stream: an unterminated last line is delivered as if it had ended with "\n".
  void finish();

  size_t buffered_bytes() const { return partial_.size(); }

 private:
  void append_partial(std::string_view bytes);
  void end_line();

  size_t max_line_bytes_;
  LineFn on_line_;
  OversizeFn on_oversized_line_;
  std::string partial_;      // the line so far
  bool discarding_ = false;  // inside an oversized line: skip to its newline
};

}  // namespace vc::transport
