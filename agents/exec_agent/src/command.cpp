#include "command.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "log.h"
#include "read_buffer.h"

namespace vc::exec_agent {

using agent_common::monotonic_ms;

namespace {

// Reads per pipe when a command finishes with data still in its pipes: enough for a full pipe
// buffer (64 KiB by default, 1 MiB at most for unprivileged raisers), bounded so that a
// daemon writing without pause cannot hold the report back.
constexpr int kFinalReadsPerPipe = 16;

// While a killed command's process group still has members, how often to look again.
constexpr Millis kGroupCheckIntervalMs = 10;

}  // namespace

Command::Command(std::uint32_t id, const StartRequest& request, const SpawnedChild& child,
                 Millis started_at, ChannelIo& channel, GroupKiller& killer)
    : id_(id),
      pid_(child.pid),
      channel_(channel),
      killer_(killer),
      started_at_(started_at),
      stdin_fd_(child.stdin_fd),
      stdout_fd_(child.stdout_fd),
      stderr_fd_(child.stderr_fd),
      stdin_from_frames_(request.stdin_open),
      output_limit_(request.output_limit) {
  if (request.timeout_ms > 0) timeout_at_ = started_at + request.timeout_ms;
}

Command::~Command() { close_pipes(); }

void Command::add_to_poll_set(PollSet& set, bool read_output) {
  // Output past the limit is dropped, not sent: reading it never adds to the congestion.
  if (read_output || discarding_output_) {
    if (stdout_fd_ >= 0) set.add(stdout_fd_, POLLIN, {PollTarget::kStdout, this});
    if (stderr_fd_ >= 0) set.add(stderr_fd_, POLLIN, {PollTarget::kStderr, this});
  }
  if (stdin_fd_ >= 0 && stdin_offset_ < pending_stdin_.size()) {
    set.add(stdin_fd_, POLLOUT, {PollTarget::kStdin, this});
  }
}

void Command::on_output_ready(PollTarget stream) {
  if (stream == PollTarget::kStdout) {
    read_stream(stdout_fd_, FrameType::kStdout);
  } else {
    read_stream(stderr_fd_, FrameType::kStderr);
  }
}

Command::ReadResult Command::read_stream(int& fd, FrameType type) {
  if (fd < 0) return ReadResult::kClosed;
  const auto buffer = shared_read_buffer();
  const ssize_t got = read(fd, buffer.data(), buffer.size());
  if (got > 0) {
    deliver_output(type, std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    return ReadResult::kData;
  }
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return ReadResult::kWouldBlock;
  close_fd(fd);  // end of file: every writer is gone
  return ReadResult::kClosed;
}

void Command::deliver_output(FrameType type, std::string_view bytes) {
  if (discarding_output_) return;
  if (output_limit_ != 0 && bytes.size() > output_limit_ - output_sent_) {
    const auto room = static_cast<std::size_t>(output_limit_ - output_sent_);
    if (room > 0) channel_.send(type, id_, bytes.substr(0, room));
    output_sent_ = output_limit_;
    on_output_limit_reached();
    return;
  }
  channel_.send(type, id_, bytes);
  output_sent_ += bytes.size();
}

void Command::on_output_limit_reached() {
  discarding_output_ = true;
  const Millis now = monotonic_ms();
  if (!ended_by_) {
    ended_by_ = Outcome::kOutputLimitExceeded;
    group_gone_by_ = now + kDrainWindowMs;
  }
  // SIGKILL at once, no TERM and grace: the rest of the output is unwanted anyway, and a
  // command flooding its pipes should stop costing CPU now, not 500 ms from now.
  log_line("command %u reached its output limit of %llu bytes: SIGKILL to process group %d", id_,
           static_cast<unsigned long long>(output_limit_), static_cast<int>(pid_));
  killer_.kill_now(pid_, now);
}

void Command::read_what_is_left() {
  for (int* fd : {&stdout_fd_, &stderr_fd_}) {
    const FrameType type = fd == &stdout_fd_ ? FrameType::kStdout : FrameType::kStderr;
    for (int reads = 0; reads < kFinalReadsPerPipe; ++reads) {
      if (read_stream(*fd, type) != ReadResult::kData) break;
    }
  }
}

std::string Command::take_stdin(std::string_view bytes) {
  if (!stdin_from_frames_) {
    return "stdin for command " + std::to_string(id_) + ", started without \"stdin\": true";
  }
  if (stdin_end_received_) {
    return "stdin for command " + std::to_string(id_) + " after its stdin_end";
  }
  // A command that closed its stdin (or ended) drops what comes next, as a pipe would.
  if (stdin_fd_ < 0) return {};
  if (!pending_stdin_.empty()) {
    pending_stdin_.append(bytes);  // behind what the pipe has not taken yet
    return {};
  }
  const std::size_t written = write_to_stdin(bytes);
  if (stdin_fd_ >= 0 && written < bytes.size()) pending_stdin_.assign(bytes.substr(written));
  return {};
}

std::string Command::end_stdin() {
  if (!stdin_from_frames_) {
    return "stdin_end for command " + std::to_string(id_) + ", started without \"stdin\": true";
  }
  stdin_end_received_ = true;
  if (pending_stdin_.empty()) close_fd(stdin_fd_);  // otherwise once the rest is written
  return {};
}

void Command::on_stdin_writable() {
  if (stdin_fd_ < 0) return;  // closed earlier in this loop turn
  const std::string_view pending = std::string_view(pending_stdin_).substr(stdin_offset_);
  const std::size_t written = write_to_stdin(pending);
  if (stdin_fd_ < 0) return;
  stdin_offset_ += written;
  if (stdin_offset_ == pending_stdin_.size()) {
    pending_stdin_.clear();
    stdin_offset_ = 0;
    if (stdin_end_received_) close_fd(stdin_fd_);
  } else if (stdin_offset_ >= kChunkSize && stdin_offset_ * 2 >= pending_stdin_.size()) {
    pending_stdin_.erase(0, stdin_offset_);  // keeps the copying linear in the bytes written
    stdin_offset_ = 0;
  }
}

// Writes as much of `bytes` as the pipe takes now; returns how much that was. On EPIPE (nobody
// reads the command's stdin any more) the stdin is closed and everything pending dropped.
std::size_t Command::write_to_stdin(std::string_view bytes) {
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t wrote = write(stdin_fd_, bytes.data() + written, bytes.size() - written);
    if (wrote > 0) {
      written += static_cast<std::size_t>(wrote);
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && errno == EAGAIN) break;
    stop_stdin();
    return 0;
  }
  return written;
}

void Command::stop_stdin() {
  pending_stdin_.clear();
  stdin_offset_ = 0;
  close_fd(stdin_fd_);
}

void Command::cancel(Millis now) {
  // Its own process already ended: the report is at most kDrainWindowMs away and what it left
  // behind is meant to go on.
  if (leader_reaped_ || ended_by_) return;
  log_line("command %u cancelled: SIGTERM to process group %d", id_, static_cast<int>(pid_));
  end_by_agent(Outcome::kCancelled, now);
}

void Command::terminate_for_shutdown(Millis now) {
  if (leader_reaped_) return;
  if (!ended_by_) {
    end_by_agent(Outcome::kCancelled, now);
  } else {
    killer_.terminate(pid_, now);  // a group already being ended keeps its KILL deadline
  }
}

void Command::end_by_agent(Outcome reason, Millis now) {
  ended_by_ = reason;
  group_gone_by_ = now + kKillGraceMs + kDrainWindowMs;
  killer_.terminate(pid_, now);
}

void Command::on_leader_exit(int wait_status, Millis now) {
  leader_reaped_ = true;
  wait_status_ = wait_status;
  duration_ms_ = now - started_at_;
  drain_until_ = now + kDrainWindowMs;
  timeout_at_.reset();
}

void Command::on_timer(Millis now) {
  if (!timeout_at_ || now < *timeout_at_) return;
  timeout_at_.reset();
  if (leader_reaped_ || ended_by_) return;
  log_line("command %u timed out after %lld ms: SIGTERM to process group %d", id_,
           static_cast<long long>(now - started_at_), static_cast<int>(pid_));
  end_by_agent(Outcome::kTimedOut, now);
}

std::optional<Millis> Command::next_deadline(Millis now) const {
  if (!leader_reaped_) return timeout_at_;
  if (group_seen_alive_ && now < group_gone_by_) {
    // Members of a killed group die and are reaped on their own schedule, and not every death
    // reaches the agent as a SIGCHLD (a member's child is its parent's to reap): look again
    // shortly.
    return std::min(now + kGroupCheckIntervalMs, group_gone_by_);
  }
  if (stdout_fd_ >= 0 || stderr_fd_ >= 0) return drain_until_;
  return std::nullopt;
}

bool Command::finish_if_done(Millis now, bool channel_congested) {
  if (!leader_reaped_) return false;
  if (ended_by_ && now < group_gone_by_) {
    // Ended by the agent: the report says the command is over, so it waits until nothing of
    // its process group is left (TERM's grace, then KILL), bounded by group_gone_by_.
    group_seen_alive_ = process_group_exists(pid_);
    if (group_seen_alive_) return false;
  }
  if (stdout_fd_ >= 0 || stderr_fd_ >= 0) {
    if (now < drain_until_ || channel_congested) return false;
    // The window is over: whatever the leader wrote before it exited is in the pipes now;
    // take it, then let go of what a daemon may still write.
    read_what_is_left();
  }
  close_pipes();

  ExitReport report = exit_report_from_wait_status(wait_status_);
  report.outcome = ended_by_.value_or(Outcome::kExited);
  report.duration_ms = duration_ms_;
  channel_.send(FrameType::kExit, id_, exit_payload(report));
  return true;
}

void Command::close_pipes() {
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
  pending_stdin_.clear();
  stdin_offset_ = 0;
}

}  // namespace vc::exec_agent
