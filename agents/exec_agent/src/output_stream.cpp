// output_stream.cpp — the ring, the log and the text of one output stream (output_stream.h).
#include "output_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "log.h"
#include "utf8_text.h"

namespace vc::exec_agent {

OutputStream::~OutputStream() { close_log(); }

std::string OutputStream::open_log(const std::string& path) {
  close_log();
  log_fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd_ < 0) return "cannot open '" + path + "': " + std::strerror(errno);
  return {};
}

void OutputStream::resume_at(std::uint64_t total) {
  total_ = total;
  cursor_ = total;
  source_open_ = false;
}

void OutputStream::append(std::string_view bytes) {
  if (bytes.empty()) return;
  write_log(bytes);
  if (ring_.empty()) ring_.assign(kRingBytes, '\0');
  // Only the last kRingBytes of a larger piece can stay.
  if (bytes.size() > ring_.size()) {
    total_ += bytes.size() - ring_.size();
    bytes.remove_prefix(bytes.size() - ring_.size());
  }
  const std::size_t at = static_cast<std::size_t>(total_ % ring_.size());
  const std::size_t first = std::min(bytes.size(), ring_.size() - at);
  std::memcpy(ring_.data() + at, bytes.data(), first);
  std::memcpy(ring_.data(), bytes.data() + first, bytes.size() - first);
  total_ += bytes.size();
}

void OutputStream::write_log(std::string_view bytes) {
  if (log_fd_ < 0) return;
  if (logged_ + bytes.size() > kLogLimitBytes) {
    bytes = bytes.substr(0, static_cast<std::size_t>(kLogLimitBytes - logged_));
    log_limit_reached_ = true;
  }
  // A regular file: the write takes it all unless the disk is full.
  while (!bytes.empty()) {
    const ssize_t wrote = write(log_fd_, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      log_line("a log file stopped growing: %s", wrote < 0 ? std::strerror(errno) : "no space");
      close_log();
      return;
    }
    logged_ += static_cast<std::uint64_t>(wrote);
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
  if (log_limit_reached_) close_log();
}

void OutputStream::close_source() { source_open_ = false; }

void OutputStream::close_log() {
  if (log_fd_ >= 0) close(log_fd_);
  log_fd_ = -1;
}

std::uint64_t OutputStream::readable_end() const {
  if (!source_open_ || total_ == oldest()) return total_;
  const std::uint64_t tail_start = std::max(oldest(), total_ >= 3 ? total_ - 3 : 0);
  return total_ - incomplete_utf8_tail(copy_range(tail_start, total_));
}

bool OutputStream::has_news_from(std::uint64_t from) const {
  return from < oldest() || std::max(from, oldest()) < readable_end();
}

std::string OutputStream::copy_range(std::uint64_t start, std::uint64_t end) const {
  std::string bytes;
  if (end <= start) return bytes;
  bytes.resize(static_cast<std::size_t>(end - start));
  const std::size_t at = static_cast<std::size_t>(start % ring_.size());
  const std::size_t first = std::min(bytes.size(), ring_.size() - at);
  std::memcpy(bytes.data(), ring_.data() + at, first);
  std::memcpy(bytes.data() + first, ring_.data(), bytes.size() - first);
  return bytes;
}

OutputStream::Piece OutputStream::take(std::uint64_t from, std::size_t budget) const {
  Piece piece;
  const std::uint64_t readable = readable_end();
  const std::uint64_t start = std::min(std::max(from, oldest()), readable);
  piece.dropped = from < oldest() ? oldest() - from : 0;
  std::uint64_t end = std::min<std::uint64_t>(readable, start + std::max<std::size_t>(budget, 4));
  std::string bytes = copy_range(start, end);
  if (end < readable) {
    // Cut by the budget: a character the cut splits waits for the next read, whole.
    const std::size_t held_back = incomplete_utf8_tail(bytes);
    bytes.resize(bytes.size() - held_back);
    end -= held_back;
  }
  append_as_valid_utf8(piece.text, bytes);
  piece.end = end;
  piece.more = end < readable;
  return piece;
}

}  // namespace vc::exec_agent
