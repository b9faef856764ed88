// stream_demuxer.cpp — the 8-byte-header frame parser of exec/attach streams.
#include "vc_engine/stream_demuxer.h"

#include <algorithm>

namespace vc::engine {
namespace {

constexpr std::size_t kHeaderSize = 8;
constexpr unsigned char kHighestStream = 3;

}  // namespace

bool StreamDemuxer::feed(std::string_view bytes, const FrameCallback& on_frame) {
  if (broken_) return false;
  if (!framed_) {
    if (!bytes.empty()) {
      payload_bytes_ += bytes.size();
      on_frame(StreamKind::kStdout, bytes);
    }
    return true;
  }
  while (!bytes.empty()) {
    if (payload_remaining_ > 0) {
      const std::size_t take = std::min<std::size_t>(payload_remaining_, bytes.size());
      payload_remaining_ -= static_cast<std::uint32_t>(take);
      payload_bytes_ += take;
      on_frame(current_, bytes.substr(0, take));
      bytes.remove_prefix(take);
      continue;
    }
    const std::size_t take = std::min(kHeaderSize - header_filled_, bytes.size());
    std::copy_n(bytes.data(), take, header_ + header_filled_);
    header_filled_ += take;
    bytes.remove_prefix(take);
    if (header_filled_ < kHeaderSize) break;  // the rest of the header comes with a later read
    header_filled_ = 0;
    // A real header has a stream byte of 0..3 and three zero bytes of padding; anything else
    // means the stream is not framed (a Tty mismatch) and guessing would print garbage.
    if (header_[0] > kHighestStream || header_[1] != 0 || header_[2] != 0 || header_[3] != 0) {
      broken_ = true;
      return false;
    }
    current_ = static_cast<StreamKind>(header_[0]);
    payload_remaining_ = (std::uint32_t{header_[4]} << 24) | (std::uint32_t{header_[5]} << 16) |
                         (std::uint32_t{header_[6]} << 8) | std::uint32_t{header_[7]};
  }
  return true;
}

}  // namespace vc::engine
