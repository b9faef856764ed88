// channel_io.h — the channel to the plugin: frames in on fd 0, frames out on fd 1.
//
// Both descriptors are non-blocking: the agent never waits on the plugin. Frames going out are
// appended to one buffer and written as fd 1 takes them; the buffer's size is the agent's
// backpressure signal (past kOutputHighWater the commands' pipes are left unread, so the
// commands block on them instead of the agent buffering without bound).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "vc_exec_agent/frames.h"

namespace vc::exec_agent {

inline constexpr std::size_t kOutputHighWater = 8u << 20;

class ChannelIo {
 public:
  enum class InputState { kOpen, kEnded };

  ChannelIo(int input_fd, int output_fd) : input_fd_(input_fd), output_fd_(output_fd) {}

  int input_fd() const { return input_fd_; }
  int output_fd() const { return output_fd_; }

  // --- plugin to agent ---
  // One read from fd 0 into the frame reader; kEnded at end of stream (or a read error).
  InputState read_input();
  // The next whole frame read so far, if any.
  std::optional<Frame> next_frame() { return reader_.next(); }
  // Why the incoming stream is broken ("" while it is not): the channel must then close.
  const std::string& input_error() const { return reader_.error(); }
  // Bytes of an incomplete frame (non-zero at end of stream: the plugin stopped mid-frame).
  std::size_t incomplete_input() const { return reader_.buffered(); }

  // --- agent to plugin ---
  void send(FrameType type, std::uint32_t id, std::string_view payload);
  // Writes as much as fd 1 takes now. False once the output is broken (the plugin is gone);
  // later frames are then dropped.
  bool flush();
  bool has_pending_output() const { return output_.size() > sent_; }
  bool output_congested() const { return output_.size() - sent_ > kOutputHighWater; }
  bool output_broken() const { return output_broken_; }

 private:
  int input_fd_;
  int output_fd_;
  FrameReader reader_;
  std::string output_;
  std::size_t sent_ = 0;  // bytes at the front of output_ already written
  bool output_broken_ = false;
};

}  // namespace vc::exec_agent
