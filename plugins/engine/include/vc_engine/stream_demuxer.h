// stream_demuxer.h — splits the engine's multiplexed exec/attach stream into frames.
//
// With Tty:false the engine frames its output as [stream u8][0 0 0][length u32 big-endian]
// [payload]. Frames are cut at arbitrary read boundaries, so the demuxer buffers a partial
// header or payload until the rest arrives. With Tty:true the stream is unframed and the
// demuxer passes every byte through as stdout. Decide framing from the Tty flag you sent: both
// engines measured here answer application/vnd.docker.raw-stream either way.
//
// Not thread-safe; one demuxer per stream, used on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace vc::engine {

// The stream a frame belongs to, as numbered on the wire.
enum class StreamKind : std::uint8_t {
  kStdin = 0,  // never seen in practice; passed on as is
  kStdout = 1,
  kStderr = 2,
  kSystem = 3,  // newer engines' "system error" stream; callers treat it as stderr
};

class StreamDemuxer {
 public:
  using FrameCallback = std::function<void(StreamKind stream, std::string_view payload)>;

  // `framed` = the exec was created with Tty:false.
  explicit StreamDemuxer(bool framed) : framed_(framed) {}

  // Feeds bytes as they arrive; calls `on_frame` for every complete frame (or, unframed, once
  // for all of `bytes`). A payload may be delivered in pieces: one call per contiguous part of a
  // frame that is available, each tagged with the frame's stream, so a large frame is never
  // buffered whole. Empty frames are skipped.
  // Returns false if the bytes cannot be a frame stream (a header whose stream byte is > 3 or
  // whose padding is not zero); the stream is then broken and further calls also return false.
  bool feed(std::string_view bytes, const FrameCallback& on_frame);

  // True when the stream ended cleanly: no partial header is buffered and no frame payload is
  // still owed. Check at EOF.
  bool at_frame_boundary() const { return header_filled_ == 0 && payload_remaining_ == 0; }

  // Bytes of payload delivered so far, all streams together.
  std::uint64_t payload_bytes() const { return payload_bytes_; }

 private:
  bool framed_;
  bool broken_ = false;
  unsigned char header_[8] = {};
  std::size_t header_filled_ = 0;
  StreamKind current_ = StreamKind::kStdout;
  std::uint32_t payload_remaining_ = 0;
  std::uint64_t payload_bytes_ = 0;
};

}  // namespace vc::engine
