// ndjson_splitter.h — newline-delimited JSON cut into lines, whatever chunks it arrives in.
//
// A watch's answer is one JSON object per line, and the bytes come in chunks that split lines
// anywhere (even inside a UTF-8 character). The splitter keeps the unfinished line between
// feed() calls and hands out each complete one, without its "\n" (or "\r\n"); empty lines are
// skipped. A line longer than the bound is refused, so a broken or hostile server cannot make the
// plugin buffer without end.
//
// Thread rule: one object per stream, used by one thread at a time.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace vc::kubernetes {

class NdjsonSplitter {
 public:
  explicit NdjsonSplitter(std::size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Calls `on_line` for each line `chunk` completes, in order, until it returns false (the
  // consumer stops: what remains of the chunk is dropped). Returns false, having called on_line
  // for the lines before it, when a line exceeds the bound; the splitter is then spent.
  bool feed(std::string_view chunk, const std::function<bool(std::string_view line)>& on_line);

  // Bytes of the unfinished line held for the next chunk.
  std::size_t pending_bytes() const { return pending_.size(); }

 private:
  std::size_t max_line_bytes_;
  std::string pending_;
  bool spent_ = false;
};

}  // namespace vc::kubernetes
