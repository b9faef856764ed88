// ndjson_splitter.cpp — NDJSON line splitting.
#include "ndjson_splitter.h"

namespace vc::engine::detail {
namespace {

void deliver(std::string_view line, const NdjsonSplitter::LineCallback& on_line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.empty()) on_line(line);
}

}  // namespace

void NdjsonSplitter::feed(std::string_view bytes, const LineCallback& on_line) {
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

void NdjsonSplitter::finish(const LineCallback& on_line) {
  const std::string line = std::move(partial_);
  partial_.clear();
  deliver(line, on_line);
}

}  // namespace vc::engine::detail
