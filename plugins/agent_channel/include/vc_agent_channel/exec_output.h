// exec_output.h — a command's output on its way to the host, whichever path ran the command
// (the engine's exec, or the exec agent).
//
//  - The output limit counts stdout and stderr together: bytes up to it are delivered, and the
//    byte that crosses it asks the command to stop (kOutputLimit).
//  - The host may refuse output for a moment (VC_E_BACKPRESSURE): it is held, in order, and
//    offered again every few milliseconds. More than 64 MiB held stops the command as if it
//    had hit the output limit, rather than buffering without bound.
//  - The host answering VC_NOTE_TRUNCATED counts as the output limit; any other refusal means
//    nobody reads the output any more (kHostGone).
//
// Thread rule: the channel's thread (channel_clock.h).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/cpp/host_log.h>

#include "channel_clock.h"

namespace vc::agent_channel {

class ExecOutput : public std::enable_shared_from_this<ExecOutput> {
 public:
  enum class Stop { kOutputLimit, kHostGone };
  // Delivers output bytes to the op (vc_op.emit semantics).
  using Emit = std::function<vc_status(vc_stream stream, std::string_view bytes)>;

  // `limit` 0 = none. `on_stop` runs at most once; `what` names the command in the log.
  ExecOutput(ChannelClock& clock, sdk::HostLog log, std::string what, Emit emit,
             std::uint64_t limit, std::function<void(Stop)> on_stop);
  ~ExecOutput();

  ExecOutput(const ExecOutput&) = delete;
  ExecOutput& operator=(const ExecOutput&) = delete;

  // Output as the command wrote it. Once a stop was asked for, bytes are only counted.
  void take(vc_stream stream, std::string_view bytes);
  // Runs `callback` once everything held has reached the host (now, when nothing is held).
  void when_delivered(std::function<void()> callback);
  // The command is over: nothing held is offered any more.
  void close();

  std::uint64_t total() const { return total_; }
  bool stopped() const { return stopped_; }

 private:
  void deliver(vc_stream stream, std::string_view bytes);
  void flush();
  void retry_later();
  void stop(Stop why);

  ChannelClock& clock_;
  const sdk::HostLog log_;
  const std::string what_;
  Emit emit_;
  const std::uint64_t limit_;
  std::function<void(Stop)> on_stop_;
  std::uint64_t total_ = 0;
  bool stopped_ = false;
  bool closed_ = false;
  std::deque<std::pair<vc_stream, std::string>> held_;  // refused with VC_E_BACKPRESSURE
  std::uint64_t held_bytes_ = 0;
  std::function<void()> on_delivered_;
  std::unique_ptr<ChannelTimer> retry_timer_;
};

}  // namespace vc::agent_channel
