// command.h — one running command: its pipes, its limits, its timers, its end.
//
// A command's life, in the terms of docs/exec-agent.md:
//   running   — output is read as it comes and sent in stdout/stderr frames (at most 64 KiB a
//               frame); stdin frames are written to its stdin pipe; a timeout or a cancel
//               TERMs its process group (KILL follows, see GroupKiller); output past the limit
//               KILLs it and is read and dropped from then on.
//   draining  — its own process was reaped; output still arriving from what it left behind (a
//               daemon holding the pipes) is read for kDrainWindowMs more. A command the agent
//               ended (timeout, cancel, output limit) also waits, bounded, for the rest of its
//               process group to be gone, so that its report means nothing of it still runs.
//   finished  — the pipes are closed and the `exit` frame is sent; the daemon, if any, goes on.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "channel_io.h"
#include "vc_agent_common/clock.h"
#include "group_killer.h"
#include "messages.h"
#include "poll_set.h"
#include "spawn.h"
#include "start_request.h"

namespace vc::exec_agent {

using agent_common::Millis;

inline constexpr Millis kDrainWindowMs = 200;

class Command {
 public:
  Command(std::uint32_t id, const StartRequest& request, const SpawnedChild& child,
          Millis started_at, ChannelIo& channel, GroupKiller& killer);
  ~Command();
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  std::uint32_t id() const { return id_; }
  pid_t pid() const { return pid_; }
  bool leader_reaped() const { return leader_reaped_; }

  // Adds this command's descriptors for the next loop turn. `read_output` is false while the
  // channel is congested: the output pipes are then left alone and the command blocks on them.
  void add_to_poll_set(PollSet& set, bool read_output);
  void on_output_ready(PollTarget stream);
  void on_stdin_writable();

  // The plugin's frames. take_stdin and end_stdin return the text of an `error` frame when the
  // frame cannot be taken, "" otherwise.
  std::string take_stdin(std::string_view bytes);
  std::string end_stdin();
  void cancel(Millis now);
  // The channel is closing: the command is ended whatever it is doing.
  void terminate_for_shutdown(Millis now);

  void on_leader_exit(int wait_status, Millis now);
  void on_timer(Millis now);
  std::optional<Millis> next_deadline(Millis now) const;
  // Sends the `exit` frame once the command is over (true then: it can be dropped): its own
  // process reaped; when the agent ended it, its process group gone too (or given up on); its
  // pipes closed by their writers or the drain window over. Never while the channel is
  // congested and output may still wait in the pipes: that was written before the exit and
  // must not be lost.
  bool finish_if_done(Millis now, bool channel_congested);

 private:
  enum class ReadResult { kData, kWouldBlock, kClosed };

  ReadResult read_stream(int& fd, FrameType type);
  void deliver_output(FrameType type, std::string_view bytes);
  void on_output_limit_reached();
  void read_what_is_left();
  std::size_t write_to_stdin(std::string_view bytes);
  void stop_stdin();
  void end_by_agent(Outcome reason, Millis now);
  void close_pipes();

  const std::uint32_t id_;
  const pid_t pid_;  // also the id of its session and process group
  ChannelIo& channel_;
  GroupKiller& killer_;
  const Millis started_at_;

  int stdin_fd_;
  int stdout_fd_;
  int stderr_fd_;

  const bool stdin_from_frames_;
  bool stdin_end_received_ = false;
  std::string pending_stdin_;     // taken from frames, not yet accepted by the pipe...
  std::size_t stdin_offset_ = 0;  // ...from this offset on

  const std::uint64_t output_limit_;  // 0: none
  std::uint64_t output_sent_ = 0;
  bool discarding_output_ = false;  // past the limit: read and drop

  std::optional<Millis> timeout_at_;
  std::optional<Outcome> ended_by_;  // set when the agent ended it (the first reason wins)
  Millis group_gone_by_ = 0;         // ...and until when its `exit` waits for the group to go
  bool group_seen_alive_ = false;

  bool leader_reaped_ = false;
  int wait_status_ = 0;
  Millis duration_ms_ = 0;
  Millis drain_until_ = 0;
};

}  // namespace vc::exec_agent
