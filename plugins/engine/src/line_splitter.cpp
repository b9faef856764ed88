// line_splitter.cpp — NDJSON line splitting.
#include "line_splitter.h"

namespace vc::engine::detail {
namespace {

void deliver(std::string_view line, const LineSplitter::LineCallback& on_line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.empty()) on_line(line);
}

}  // namespace

void LineSplitter::feed(std::string_view bytes, const LineCallback& on_line) {
  while (!bytes.empty()) {
    const std::size_t newline = bytes.find('\n');
    if (newline == std::string_view::npos) {
      partial_.append(bytes);
      return;
    }
    if (partial_.empty()) {
      // The common case: a whole line inside one read, delivered without copying.
      deliver(bytes.substr(0, newline), on_line);
    } else {
      partial_.append(bytes.substr(0, newline));
      const std::string line = std::move(partial_);
      partial_.clear();
      deliver(line, on_line);
    }
    bytes.remove_prefix(newline + 1);
  }
}

void LineSplitter::finish(const LineCallback& on_line) {
  const std::string line = std::move(partial_);
  partial_.clear();
  deliver(line, on_line);
}

}  // namespace vc::engine::detail
