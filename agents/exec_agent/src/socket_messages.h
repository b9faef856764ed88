// socket_messages.h — how `process-call` and the process supervisor talk on the supervisor's
// Unix socket: each message is a 4-byte big-endian length and that many bytes of one JSON
// object. A connection carries one request and one answer.
//
// Bounded both ways: a request is at most kMaxRequestBytes (the JSON process-call read from
// its stdin), an answer at most kMaxAnswerBytes (1 MiB of output, escaped as JSON, fits).
// Pure functions and a small reader; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace vc::exec_agent {

inline constexpr std::size_t kMessageHeaderSize = 4;
inline constexpr std::size_t kMaxRequestBytes = 1u << 20;
inline constexpr std::size_t kMaxAnswerBytes = 16u << 20;

inline std::string encode_message(std::string_view body) {
  const auto length = static_cast<std::uint32_t>(body.size());
  std::string out;
  out.reserve(kMessageHeaderSize + body.size());
  out.push_back(static_cast<char>(length >> 24));
  out.push_back(static_cast<char>(length >> 16));
  out.push_back(static_cast<char>(length >> 8));
  out.push_back(static_cast<char>(length));
  out.append(body);
  return out;
}

// Collects the bytes of one message as they arrive.
class MessageReader {
 public:
  explicit MessageReader(std::size_t max_body) : max_body_(max_body) {}

  void feed(std::string_view bytes) { buffer_.append(bytes); }
  // The body once it is all there. Bytes beyond it (a second message) make it malformed.
  std::optional<std::string> body() const {
    if (malformed() || buffer_.size() < kMessageHeaderSize + declared()) return std::nullopt;
    return buffer_.substr(kMessageHeaderSize);
  }
  bool malformed() const {
    if (buffer_.size() < kMessageHeaderSize) return false;
    return declared() > max_body_ || buffer_.size() > kMessageHeaderSize + declared();
  }
  std::size_t buffered() const { return buffer_.size(); }

 private:
  std::size_t declared() const {
    const auto byte = [this](std::size_t at) {
      return static_cast<std::uint32_t>(static_cast<unsigned char>(buffer_[at]));
    };
    return (byte(0) << 24) | (byte(1) << 16) | (byte(2) << 8) | byte(3);
  }

  std::size_t max_body_;
  std::string buffer_;
};

}  // namespace vc::exec_agent
