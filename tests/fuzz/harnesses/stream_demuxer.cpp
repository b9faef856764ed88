// stream_demuxer — an exec's multiplexed output stream ([stream][0 0 0][length][payload]...)
// as the engine sends it, cut into reads whose sizes the first byte chooses; framed and
// unframed. The demuxer must hand on exactly the payload bytes it was given, never more, and
// refuse what cannot be a frame stream without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "vc_engine/stream_demuxer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::size_t piece = 1 + data[0] % 32;
  const bool framed = (data[0] & 0x80) == 0;
  std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  vc::engine::StreamDemuxer demuxer(framed);
  std::size_t delivered = 0;
  auto on_frame = [&delivered](vc::engine::StreamKind, std::string_view payload) {
    delivered += payload.size();
  };
  while (!bytes.empty()) {
    const std::size_t take = bytes.size() < piece ? bytes.size() : piece;
    if (!demuxer.feed(bytes.substr(0, take), on_frame)) break;
    bytes.remove_prefix(take);
  }
  (void)demuxer.at_frame_boundary();
  if (delivered > size || demuxer.payload_bytes() != delivered) __builtin_trap();
  return 0;
}
