// output_stream.h — one output stream of a supervised process (its stdout, its stderr, or a
// pty's one stream): the last bytes in memory, every byte in a log file, and read positions.
//
// Positions are byte offsets in the stream since the process started (total() is the count so
// far). Memory holds the last kRingBytes in a ring; what falls out of it before the shared read
// cursor reaches it is "dropped" (counted once, by the read that notices). The log file gets
// every byte, up to kLogLimitBytes, then stops growing. Reads hand out text: valid UTF-8, cut
// at character boundaries (utf8_text.h). Single-threaded (the supervisor's loop).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace vc::exec_agent {

inline constexpr std::size_t kRingBytes = 256u << 10;
inline constexpr std::uint64_t kLogLimitBytes = 1ull << 30;

class OutputStream {
 public:
  OutputStream() = default;
  ~OutputStream();
  OutputStream(const OutputStream&) = delete;
  OutputStream& operator=(const OutputStream&) = delete;

  // Opens the log file for appending (created 0600 when missing). "" or why it cannot.
  std::string open_log(const std::string& path);
  // For a process an earlier supervisor ran: the stream already holds `total` bytes (its log's
  // size), none of them in memory, all of them read.
  void resume_at(std::uint64_t total);

  void append(std::string_view bytes);
  // The process's end of the stream is closed: nothing more comes, so an incomplete character
  // at the end is returned (as U+FFFD) rather than held back.
  void close_source();
  void close_log();

  std::uint64_t total() const { return total_; }
  std::uint64_t cursor() const { return cursor_; }
  bool log_limit_reached() const { return log_limit_reached_; }

  // The end of what a read can return now: total(), less a character still being written.
  std::uint64_t readable_end() const;
  // True when a read from `from` would return something, or report dropped bytes.
  bool has_news_from(std::uint64_t from) const;

  struct Piece {
    std::string text;          // valid UTF-8
    std::uint64_t end = 0;     // the stream position after what was taken
    std::uint64_t dropped = 0; // bytes between `from` and the oldest byte still in memory
    bool more = false;         // readable bytes beyond `end`
  };
  // At most `budget` bytes from position `from` (at least 4 bytes: one whole character fits).
  Piece take(std::uint64_t from, std::size_t budget) const;
  void move_cursor(std::uint64_t to) { cursor_ = to; }

 private:
  std::uint64_t oldest() const { return total_ > ring_.size() ? total_ - ring_.size() : 0; }
  std::string copy_range(std::uint64_t start, std::uint64_t end) const;
  void write_log(std::string_view bytes);

  std::string ring_;  // empty until the first byte, then kRingBytes
  std::uint64_t total_ = 0;
  std::uint64_t cursor_ = 0;
  bool source_open_ = true;

  int log_fd_ = -1;
  std::uint64_t logged_ = 0;
  bool log_limit_reached_ = false;
};

}  // namespace vc::exec_agent
