// ndjson_splitter.h — cuts a byte stream into lines (NDJSON bodies arrive in arbitrary pieces).
// Not thread-safe; one per stream.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace vc::engine::detail {

class NdjsonSplitter {
 public:
  using LineCallback = std::function<void(std::string_view line)>;

  // Appends `bytes`; calls `on_line` for every line completed by a '\n', without the '\n' and
  // without a '\r' before it. Empty lines are skipped.
  void feed(std::string_view bytes, const LineCallback& on_line);
  // Delivers a last line that had no '\n' (if not empty). Call once at the end of the body.
  void finish(const LineCallback& on_line);
  // Bytes of the incomplete line held back.
  std::size_t pending() const { return partial_.size(); }

 private:
  std::string partial_;
};

}  // namespace vc::engine::detail
