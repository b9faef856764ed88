#include "agent.h"

#include <algorithm>
#include <variant>

#include "log.h"
#include "messages.h"
#include "start_request.h"

namespace vc::exec_agent {

using agent_common::monotonic_ms;

namespace {

// How long a closing agent waits for its commands to end (TERM, KILL 500 ms later, reaped)
// before it exits regardless.
constexpr Millis kShutdownBoundMs = 1000;

}  // namespace

int Agent::run() {
  for (;;) {
    Millis now = monotonic_ms();
    run_timers(now);
    finish_commands(now);
    channel_.flush();
    if (channel_.output_broken() && !shutdown_deadline_) {
      log_line("the channel's output is gone: ending %zu commands", commands_.size());
      begin_shutdown(kExitOutputFailed, now);
    }
    if (shutdown_deadline_ && shutdown_finished(now)) break;

    build_poll_set();
    if (poll_set_.wait(poll_timeout(now)) == 0) continue;
    now = monotonic_ms();
    for (std::size_t index = 0; index < poll_set_.size(); ++index) {
      if (poll_set_.ready_events(index) != 0) handle_ready(index, now);
    }
  }
  killer_.kill_all_pending();
  channel_.flush();  // best effort: the plugin may still read the last `exit` frames
  return exit_code_;
}

void Agent::build_poll_set() {
  poll_set_.clear();
  if (reading_input_) poll_set_.add(channel_.input_fd(), POLLIN, {PollTarget::kChannelInput});
  if (channel_.has_pending_output()) {
    poll_set_.add(channel_.output_fd(), POLLOUT, {PollTarget::kChannelOutput});
  }
  poll_set_.add(reaper_.fd(), POLLIN, {PollTarget::kChildSignals});
  const bool read_output = !channel_.output_congested();
  for (const auto& command : commands_) command->add_to_poll_set(poll_set_, read_output);
}

int Agent::poll_timeout(Millis now) const {
  std::optional<Millis> nearest = killer_.next_deadline();
  const auto consider = [&nearest](std::optional<Millis> deadline) {
    if (deadline && (!nearest || *deadline < *nearest)) nearest = deadline;
  };
  consider(shutdown_deadline_);
  // A congested channel holds back every command's end (Command::finish_if_done): their drain
  // deadlines would only spin the loop; fd 1 becoming writable wakes it instead.
  const bool congested = channel_.output_congested();
  for (const auto& command : commands_) {
    if (!(congested && command->leader_reaped())) consider(command->next_deadline(now));
  }
  if (!nearest) return -1;
  return static_cast<int>(std::clamp<Millis>(*nearest - now, 0, 60'000));
}

void Agent::handle_ready(std::size_t index, Millis now) {
  const PollOwner& owner = poll_set_.owner(index);
  switch (owner.target) {
    case PollTarget::kChannelInput: return read_channel(now);
    case PollTarget::kChannelOutput: channel_.flush(); return;
    case PollTarget::kChildSignals: return reap_children(now);
    case PollTarget::kStdout:
    case PollTarget::kStderr: return owner.command->on_output_ready(owner.target);
    case PollTarget::kStdin: return owner.command->on_stdin_writable();
  }
}

// --- frames from the plugin ---

void Agent::read_channel(Millis now) {
  const ChannelIo::InputState state = channel_.read_input();
  while (reading_input_) {
    auto frame = channel_.next_frame();
    if (!frame) break;
    handle_frame(*frame, now);
  }
  if (!reading_input_) return;
  if (!channel_.input_error().empty()) return protocol_error(channel_.input_error(), now);
  if (state == ChannelIo::InputState::kEnded) {
    if (channel_.incomplete_input() > 0) {
      log_line("the channel ended in the middle of a frame (%zu bytes of it)",
               channel_.incomplete_input());
    }
    log_line("the channel ended: ending %zu commands and exiting", commands_.size());
    begin_shutdown(kExitChannelEnded, now);
  }
}

void Agent::handle_frame(const Frame& frame, Millis now) {
  switch (frame.type) {
    case FrameType::kStart: return start_command(frame.id, frame.payload);
    case FrameType::kStdin: return forward_stdin(frame.id, frame.payload);
    case FrameType::kStdinEnd: return forward_stdin_end(frame.id);
    case FrameType::kCancel: return forward_cancel(frame.id, now);
    default:
      // A type of the protocol, but one only the agent sends: the plugin is confused, and
      // guessing what it meant could run or kill the wrong thing.
      return protocol_error("a frame of type " + std::to_string(static_cast<int>(frame.type)) +
                                " (one only the agent sends)",
                            now);
  }
}

void Agent::start_command(std::uint32_t id, std::string_view payload) {
  if (id == 0) return send_error(id, "command id 0 is the channel's own");
  if (find_command(id) != nullptr) {
    return send_error(id, "command id " + std::to_string(id) + " is already running");
  }
  const ParsedStartRequest parsed = parse_start_request(payload);
  if (!parsed.request) return send_error(id, "malformed start: " + parsed.error);
  const StartRequest& request = *parsed.request;

  if (request.cwd) {
    if (const auto failure = check_working_directory(*request.cwd)) {
      return report_start_failure(id, *failure);
    }
  }
  const Millis forked_at = monotonic_ms();
  const auto spawned = spawn_command(request);
  if (const auto* failure = std::get_if<StartFailure>(&spawned)) {
    log_line("command %u could not start: %s", id, failure->error.c_str());
    return report_start_failure(id, *failure);
  }
  const auto& child = std::get<SpawnedChild>(spawned);
  killer_.forget(child.pid);
  channel_.send(FrameType::kStarted, id, started_payload(child.pid));
  commands_.push_back(std::make_unique<Command>(id, request, child, forked_at, channel_, killer_));
}

void Agent::report_start_failure(std::uint32_t id, const StartFailure& failure) {
  ExitReport report;
  report.outcome = Outcome::kStartFailed;
  report.exit_code = -1;  // no process, no exit status
  report.error_code = failure.error_code;
  report.error = failure.error;
  channel_.send(FrameType::kExit, id, exit_payload(report));
}

void Agent::forward_stdin(std::uint32_t id, std::string_view bytes) {
  Command* command = find_command(id);
  if (command == nullptr) return refuse_unknown_id(id, "stdin");
  if (const std::string error = command->take_stdin(bytes); !error.empty()) send_error(id, error);
}

void Agent::forward_stdin_end(std::uint32_t id) {
  Command* command = find_command(id);
  if (command == nullptr) return refuse_unknown_id(id, "stdin_end");
  if (const std::string error = command->end_stdin(); !error.empty()) send_error(id, error);
}

void Agent::forward_cancel(std::uint32_t id, Millis now) {
  Command* command = find_command(id);
  if (command == nullptr) return refuse_unknown_id(id, "cancel");
  command->cancel(now);
}

void Agent::refuse_unknown_id(std::uint32_t id, const char* frame_name) {
  if (finished_recently(id)) return;
  send_error(id, std::string(frame_name) + " for command id " + std::to_string(id) +
                     ", which is not running");
}

void Agent::send_error(std::uint32_t id, const std::string& message) {
  log_line("refused a frame for command id %u: %s", id, message.c_str());
  channel_.send(FrameType::kError, id, error_payload(message));
}

// --- children and timers ---

void Agent::reap_children(Millis now) {
  reaper_.reap([this, now](pid_t pid, int wait_status) {
    // Other pids are orphans the agent inherited as subreaper: reaped, nothing more.
    if (Command* command = find_command_by_pid(pid)) command->on_leader_exit(wait_status, now);
  });
}

void Agent::run_timers(Millis now) {
  for (const auto& command : commands_) command->on_timer(now);
  killer_.on_timer(now);
}

void Agent::finish_commands(Millis now) {
  const bool congested = channel_.output_congested();
  std::erase_if(commands_, [&](const std::unique_ptr<Command>& command) {
    if (!command->finish_if_done(now, congested)) return false;
    remember_finished(command->id());
    return true;
  });
}

// --- the end ---

void Agent::protocol_error(const std::string& why, Millis now) {
  log_line("protocol error: %s; ending %zu commands and exiting", why.c_str(), commands_.size());
  begin_shutdown(kExitProtocolError, now);
}

// Stops taking frames and ends every running command's process group (TERM now, KILL after the
// grace); the loop then runs until they are gone, bounded by kShutdownBoundMs.
void Agent::begin_shutdown(int exit_code, Millis now) {
  if (shutdown_deadline_) return;
  reading_input_ = false;
  exit_code_ = exit_code;
  shutdown_deadline_ = now + kShutdownBoundMs;
  for (const auto& command : commands_) command->terminate_for_shutdown(now);
}

bool Agent::shutdown_finished(Millis now) {
  if (now >= *shutdown_deadline_) {
    if (!commands_.empty()) {
      log_line("%zu commands still not done after %lld ms: killing what is left and exiting",
               commands_.size(), static_cast<long long>(kShutdownBoundMs));
    }
    return true;
  }
  return commands_.empty() && !killer_.has_live_groups() && !channel_.has_pending_output();
}

Command* Agent::find_command(std::uint32_t id) {
  for (const auto& command : commands_) {
    if (command->id() == id) return command.get();
  }
  return nullptr;
}

Command* Agent::find_command_by_pid(pid_t pid) {
  for (const auto& command : commands_) {
    if (command->pid() == pid) return command.get();
  }
  return nullptr;
}

void Agent::remember_finished(std::uint32_t id) {
  recently_finished_[next_finished_slot_] = id;
  next_finished_slot_ = (next_finished_slot_ + 1) % recently_finished_.size();
}

bool Agent::finished_recently(std::uint32_t id) const {
  return id != 0 && std::find(recently_finished_.begin(), recently_finished_.end(), id) !=
                        recently_finished_.end();
}

}  // namespace vc::exec_agent
