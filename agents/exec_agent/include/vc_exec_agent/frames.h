// frames.h — the exec agent's wire format: length-prefixed, multiplexed frames.
//
// The container plugins talk to vc-exec-agent (the small static program they run inside each
// computer) over the stdin and stdout of one long-lived engine exec. Both directions carry the
// same frames:
//
//   offset 0: u32 big-endian  payload length (at most kMaxPayload)
//   offset 4: u32 big-endian  command id (0: the channel itself)
//   offset 8: u8              frame type (FrameType)
//   offset 9: payload         raw bytes (output, stdin) or one UTF-8 JSON object (control)
//
// The protocol, its JSON fields and its rules: docs/exec-agent.md. This header is shared by the
// agent and the plugins, so that both ends encode and decode with the same code. Header-only,
// no dependencies beyond the standard library; pure, any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vc::exec_agent {

// Bumped when a frame or a field changes meaning; the plugin refuses an agent that speaks
// another protocol (it replaces the binary instead).
inline constexpr std::uint32_t kProtocolVersion = 1;

inline constexpr std::size_t kHeaderSize = 9;
// Larger frames are a protocol error: the reader stops and the channel is closed. Output and
// stdin are sent in pieces of at most kChunkSize.
inline constexpr std::uint32_t kMaxPayload = 1u << 20;
inline constexpr std::size_t kChunkSize = 64u << 10;

enum class FrameType : std::uint8_t {
  // plugin -> agent
  kStart = 0x01,     // JSON: argv, cwd, env, timeout_ms, output_limit, stdin
  kStdin = 0x02,     // bytes for the command's stdin
  kStdinEnd = 0x03,  // no more stdin: the command's stdin is closed
  kCancel = 0x04,    // stop the command (its process group: TERM, a short grace, KILL)

  // agent -> plugin
  kHello = 0x10,    // id 0, JSON: agent, version, protocol, pid, uid — the first frame
  kStarted = 0x11,  // JSON: pid (the command's process, leader of its own process group)
  kStdout = 0x12,   // bytes the command wrote to stdout
  kStderr = 0x13,   // bytes the command wrote to stderr
  kExit = 0x14,     // JSON: outcome, exit_code, signal, duration_ms, error_code, error — the last
                    // frame of a command
  kError = 0x15,    // JSON: message — a request the agent could not take (id as given)
};

// True for the types this protocol version defines.
inline bool known_frame_type(std::uint8_t type) {
  return (type >= 0x01 && type <= 0x04) || (type >= 0x10 && type <= 0x15);
}

struct Frame {
  FrameType type{};
  std::uint32_t id = 0;
  std::string payload;
};

// Appends one frame to `out`. The payload must not exceed kMaxPayload (callers chunk).
inline void append_frame(std::string& out, FrameType type, std::uint32_t id,
                         std::string_view payload) {
  const auto length = static_cast<std::uint32_t>(payload.size());
  const unsigned char header[kHeaderSize] = {
      static_cast<unsigned char>(length >> 24), static_cast<unsigned char>(length >> 16),
      static_cast<unsigned char>(length >> 8),  static_cast<unsigned char>(length),
      static_cast<unsigned char>(id >> 24),     static_cast<unsigned char>(id >> 16),
      static_cast<unsigned char>(id >> 8),      static_cast<unsigned char>(id),
      static_cast<unsigned char>(type)};
  out.append(reinterpret_cast<const char*>(header), kHeaderSize);
  out.append(payload);
}

inline std::string encode_frame(FrameType type, std::uint32_t id, std::string_view payload = {}) {
  std::string out;
  out.reserve(kHeaderSize + payload.size());
  append_frame(out, type, id, payload);
  return out;
}

// Cuts a byte stream into frames. feed() the bytes as they arrive, then call next() until it
// yields nothing. Once a header is invalid (a payload over kMaxPayload, an unknown type) the
// reader is broken for good: the stream cannot be resynchronised, so the channel must close.
class FrameReader {
 public:
  void feed(std::string_view bytes) {
    if (error_.empty()) buffer_.append(bytes);
  }

  std::optional<Frame> next() {
    if (!error_.empty()) return std::nullopt;
    if (buffer_.size() - consumed_ < kHeaderSize) {
      compact();
      return std::nullopt;
    }
    const auto* header = reinterpret_cast<const unsigned char*>(buffer_.data() + consumed_);
    const std::uint32_t length = read_u32(header);
    const std::uint32_t id = read_u32(header + 4);
    const std::uint8_t type = header[8];
    if (length > kMaxPayload) {
      error_ = "a frame of " + std::to_string(length) + " bytes (the limit is " +
               std::to_string(kMaxPayload) + ")";
      return std::nullopt;
    }
    if (!known_frame_type(type)) {
      error_ = "a frame of unknown type " + std::to_string(type);
      return std::nullopt;
    }
    if (buffer_.size() - consumed_ < kHeaderSize + length) {
      compact();
      return std::nullopt;
    }
    Frame frame{static_cast<FrameType>(type), id,
                buffer_.substr(consumed_ + kHeaderSize, length)};
    consumed_ += kHeaderSize + length;
    return frame;
  }

  // Why the stream is broken ("" while it is not).
  const std::string& error() const { return error_; }
  // Bytes received that do not yet make a whole frame (a stream that ends with some left was
  // cut in the middle of a frame).
  std::size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  static std::uint32_t read_u32(const unsigned char* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
           std::uint32_t{p[3]};
  }
  void compact() {
    if (consumed_ == 0) return;
    buffer_.erase(0, consumed_);
    consumed_ = 0;
  }

  std::string buffer_;
  std::size_t consumed_ = 0;
  std::string error_;
};

}  // namespace vc::exec_agent
