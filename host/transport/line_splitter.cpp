// line_splitter.cpp — see line_splitter.h.
#include "transport/line_splitter.h"

#include <utility>

namespace vc::transport {

LineSplitter::LineSplitter(size_t max_line_bytes, LineFn on_line, OversizeFn on_oversized_line)
    : max_line_bytes_(max_line_bytes),
      on_line_(std::move(on_line)),
      on_oversized_line_(std::move(on_oversized_line)) {}

void LineSplitter::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    append_partial(bytes.substr(0, newline));
    if (newline == std::string_view::npos) return;
    end_line();
    bytes.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish() { end_line(); }

void LineSplitter::append_partial(std::string_view bytes) {
  if (discarding_) return;
  if (partial_.size() + bytes.size() > max_line_bytes_) {
    // The "\r" of a CRLF still to come would not count, but one byte of slack is not worth
    // the bookkeeping: the limit is a safety net, not a protocol rule.
    partial_.clear();
    partial_.shrink_to_fit();
    discarding_ = true;
    on_oversized_line_();
    return;
  }
  partial_.append(bytes);
}

void LineSplitter::end_line() {
  if (discarding_) {
    discarding_ = false;
    return;
  }
  std::string line = std::exchange(partial_, {});
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.find_first_not_of(" \t\r") == std::string::npos) return;  // blank line
  on_line_(line);
}

}  // namespace vc::transport
