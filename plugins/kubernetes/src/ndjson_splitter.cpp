// ndjson_splitter.cpp — lines out of chunks, bounded. Thread rule: see ndjson_splitter.h.
#include "ndjson_splitter.h"

namespace vc::kubernetes {
namespace {

std::string_view without_carriage_return(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace

bool NdjsonSplitter::feed(std::string_view chunk,
                          const std::function<bool(std::string_view line)>& on_line) {
  if (spent_) return false;
  while (!chunk.empty()) {
    const auto newline = chunk.find('\n');
    const std::string_view piece = chunk.substr(0, newline);
    if (pending_.size() + piece.size() > max_line_bytes_) {
      spent_ = true;
      pending_.clear();
      return false;
    }
    if (newline == std::string_view::npos) {
      pending_.append(piece);  // the line goes on in the next chunk
      return true;
    }
    chunk.remove_prefix(newline + 1);
    std::string_view line = piece;  // the common case: the whole line is in this chunk
    if (!pending_.empty()) {
      pending_.append(piece);
      line = pending_;
    }
    line = without_carriage_return(line);
    const bool go_on = line.empty() || on_line(line);
    pending_.clear();
    if (!go_on) return true;
  }
  return true;
}

}  // namespace vc::kubernetes
