#include "channel_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "log.h"
#include "read_buffer.h"

namespace vc::exec_agent {
namespace {

// Written bytes are dropped from the front of the buffer only once they are this many and make
// up most of it, so that the copy this costs stays small next to the bytes written.
constexpr std::size_t kCompactAfter = 1u << 20;

}  // namespace

ChannelIo::InputState ChannelIo::read_input() {
  const auto buffer = shared_read_buffer();
  const ssize_t got = read(input_fd_, buffer.data(), buffer.size());
  if (got > 0) {
    reader_.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    return InputState::kOpen;
  }
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return InputState::kOpen;
  if (got < 0) log_line("reading the channel failed: %s", std::strerror(errno));
  return InputState::kEnded;
}

void ChannelIo::send(FrameType type, std::uint32_t id, std::string_view payload) {
  if (output_broken_) return;
  append_frame(output_, type, id, payload);
}

bool ChannelIo::flush() {
  while (!output_broken_ && has_pending_output()) {
    const ssize_t wrote = write(output_fd_, output_.data() + sent_, output_.size() - sent_);
    if (wrote > 0) {
      sent_ += static_cast<std::size_t>(wrote);
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && errno == EAGAIN) break;
    log_line("writing the channel failed: %s", wrote < 0 ? std::strerror(errno) : "no progress");
    output_broken_ = true;
  }
  if (output_broken_ || sent_ == output_.size()) {
    // A burst of output may have grown the buffer to the high-water mark; give that back
    // rather than hold megabytes for the rest of the computer's life.
    if (output_.capacity() > kCompactAfter) {
      std::string().swap(output_);
    } else {
      output_.clear();
    }
    sent_ = 0;
  } else if (sent_ >= kCompactAfter && sent_ * 2 >= output_.size()) {
    output_.erase(0, sent_);
    sent_ = 0;
  }
  return !output_broken_;
}

}  // namespace vc::exec_agent
