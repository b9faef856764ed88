// agent.h — the event loop: the channel, the commands, their children, their timers.
//
// Single-threaded, on poll(): fd 0 for the plugin's frames, fd 1 while output waits to be
// written, the signalfd for SIGCHLD, and each command's pipes. Timers (timeouts, kill graces,
// drain windows, the shutdown bound) are deadlines on the monotonic clock that set poll()'s
// timeout. The loop owns the order of things: events first, then timers, then commands that
// are done send their `exit`, then the output is flushed, all before sleeping again.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "channel_io.h"
#include "child_reaper.h"
#include "vc_agent_common/clock.h"
#include "command.h"
#include "group_killer.h"
#include "poll_set.h"
#include "spawn.h"

namespace vc::exec_agent {

using agent_common::Millis;

// Exit statuses of the agent itself.
inline constexpr int kExitChannelEnded = 0;   // the plugin closed the channel
inline constexpr int kExitOutputFailed = 1;   // the channel's output broke
inline constexpr int kExitProtocolError = 2;  // the plugin sent something that is not a frame

class Agent {
 public:
  Agent(ChannelIo& channel, ChildReaper& reaper) : channel_(channel), reaper_(reaper) {}

  // Runs until the channel ends or breaks; returns the agent's exit status.
  int run();

 private:
  void build_poll_set();
  int poll_timeout(Millis now) const;
  void handle_ready(std::size_t index, Millis now);

  void read_channel(Millis now);
  void handle_frame(const Frame& frame, Millis now);
  void start_command(std::uint32_t id, std::string_view payload);
  void report_start_failure(std::uint32_t id, const StartFailure& failure);
  void forward_stdin(std::uint32_t id, std::string_view bytes);
  void forward_stdin_end(std::uint32_t id);
  void forward_cancel(std::uint32_t id, Millis now);
  // For a frame naming no running command: an `error` frame, unless the command has just
  // finished (a stdin or cancel crossing its `exit` on the wire is expected, not an error).
  void refuse_unknown_id(std::uint32_t id, const char* frame_name);
  void send_error(std::uint32_t id, const std::string& message);

  void reap_children(Millis now);
  void run_timers(Millis now);
  void finish_commands(Millis now);

  void protocol_error(const std::string& why, Millis now);
  void begin_shutdown(int exit_code, Millis now);
  bool shutdown_finished(Millis now);

  Command* find_command(std::uint32_t id);
  Command* find_command_by_pid(pid_t pid);
  void remember_finished(std::uint32_t id);
  bool finished_recently(std::uint32_t id) const;

  ChannelIo& channel_;
  ChildReaper& reaper_;
  GroupKiller killer_;
  PollSet poll_set_;
  std::vector<std::unique_ptr<Command>> commands_;

  // The last ids that sent their `exit` (0: an empty slot; 0 is never a command id).
  std::array<std::uint32_t, 64> recently_finished_{};
  std::size_t next_finished_slot_ = 0;

  bool reading_input_ = true;
  std::optional<Millis> shutdown_deadline_;
  int exit_code_ = kExitChannelEnded;
};

}  // namespace vc::exec_agent
