// managed_process.cpp — one supervised process's streams, input and end (managed_process.h).
#include "managed_process.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "log.h"
#include "process_request.h"
#include "read_buffer.h"
#include "spawn.h"

namespace vc::exec_agent {

using agent_common::monotonic_ms;

namespace {

// Reads per descriptor when the process ends: enough for a full pipe buffer, bounded so that
// a daemon writing without pause cannot hold the end back.
constexpr int kDrainReadsPerStream = 16;

std::uint64_t file_size(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
}

}  // namespace

ManagedProcess::ManagedProcess(ProcessRecord record, int stdin_fd, int stdout_fd, int stderr_fd)
    : record_(std::move(record)), stdin_fd_(stdin_fd), stdout_fd_(stdout_fd), stderr_fd_(stderr_fd) {
  if (stderr_fd_ < 0) stderr_.close_source();  // a pty: all output is one stream
}

ManagedProcess::ManagedProcess(ProcessRecord record, const std::string& state_dir)
    : record_(std::move(record)) {
  if (record_.pty) {
    stdout_.resume_at(file_size(log_path(state_dir, record_, "output")));
    stderr_.resume_at(0);
  } else {
    stdout_.resume_at(file_size(log_path(state_dir, record_, "stdout")));
    stderr_.resume_at(file_size(log_path(state_dir, record_, "stderr")));
  }
  stdin_closed_ = true;
}

ManagedProcess::~ManagedProcess() {
  close_fd(stdin_fd_);
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
}

std::string ManagedProcess::open_logs(const std::string& state_dir) {
  if (record_.pty) return stdout_.open_log(log_path(state_dir, record_, "output"));
  if (std::string error = stdout_.open_log(log_path(state_dir, record_, "stdout")); !error.empty()) {
    return error;
  }
  return stderr_.open_log(log_path(state_dir, record_, "stderr"));
}

bool ManagedProcess::settled(Millis now) const {
  if (running()) return false;
  if (!reaped_at_) return true;  // ended under an earlier supervisor
  return (stdout_fd_ < 0 && stderr_fd_ < 0) || now >= *reaped_at_ + kSettleMs;
}

std::optional<Millis> ManagedProcess::settle_deadline() const {
  if (!reaped_at_ || (stdout_fd_ < 0 && stderr_fd_ < 0)) return std::nullopt;
  return *reaped_at_ + kSettleMs;
}

void ManagedProcess::on_output_ready(StreamId stream) { read_output(stream); }

ManagedProcess::ReadOutcome ManagedProcess::read_output(StreamId stream) {
  int fd = stream == StreamId::kStdout ? stdout_fd_ : stderr_fd_;
  if (fd < 0) return ReadOutcome::kClosed;
  const auto buffer = shared_read_buffer();
  const ssize_t got = read(fd, buffer.data(), buffer.size());
  if (got > 0) {
    this->stream(stream).append(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
    last_output_at_ = agent_common::monotonic_ms();
    return ReadOutcome::kData;
  }
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return ReadOutcome::kWouldBlock;
  // End of file (every writer gone) or, for a terminal, EIO: nobody holds its other side.
  close_output(stream);
  return ReadOutcome::kClosed;
}

void ManagedProcess::close_output(StreamId stream) {
  if (stream == StreamId::kStdout) {
    // A terminal's input is the same terminal: gone with it.
    if (record_.pty) close_stdin();
    close_fd(stdout_fd_);
  } else {
    close_fd(stderr_fd_);
  }
  this->stream(stream).close_source();
  this->stream(stream).close_log();
}

void ManagedProcess::on_leader_exit(int wait_status) {
  record_.state = ProcessState::kExited;
  if (WIFSIGNALED(wait_status)) {
    record_.exit_code = 128 + WTERMSIG(wait_status);
    record_.signal = signal_name(WTERMSIG(wait_status));
  } else {
    record_.exit_code = WEXITSTATUS(wait_status);
  }
  record_.ended = rfc3339_now();
  reaped_at_ = monotonic_ms();
  // What it wrote before it exited is in the pipes now.
  for (const StreamId stream : {StreamId::kStdout, StreamId::kStderr}) {
    for (int reads = 0; reads < kDrainReadsPerStream; ++reads) {
      if (read_output(stream) != ReadOutcome::kData) break;
    }
  }
  if (!record_.pty) close_stdin();  // a terminal's is closed with its output
}

std::optional<InputRefusal> ManagedProcess::take_input(std::string_view input, bool close_stdin) {
  if (close_stdin && record_.pty) {
    return InputRefusal{"invalid_argument",
                        "Process " + id() + " runs in a terminal, whose input cannot be closed; "
                        "type Ctrl-D (\"\\u0004\") to end a line-reading program's input."};
  }
  if (!running()) {
    if (input.empty()) return std::nullopt;  // nothing to write: a read
    return InputRefusal{"stdin_closed", "Process " + id() + " has ended; it reads no more input."};
  }
  if (stdin_closed_ || stdin_fd_ < 0) {
    if (input.empty()) return std::nullopt;
    return InputRefusal{"stdin_closed",
                        "The stdin of process " + id() + " is closed; it reads no more input."};
  }
  const std::size_t backlog = pending_input_.size() - input_offset_;
  if (backlog + input.size() > kMaxInputBacklog) {
    return InputRefusal{"input_backlog", "The process has not read the last " +
                                             std::to_string(backlog) +
                                             " bytes written to it; try again once it has."};
  }
  pending_input_.append(input);
  if (close_stdin) close_stdin_when_written_ = true;
  write_pending_input();
  return std::nullopt;
}

void ManagedProcess::on_input_writable() { write_pending_input(); }

void ManagedProcess::write_pending_input() {
  while (stdin_fd_ >= 0 && input_offset_ < pending_input_.size()) {
    const ssize_t wrote = write(stdin_fd_, pending_input_.data() + input_offset_,
                                pending_input_.size() - input_offset_);
    if (wrote > 0) {
      input_offset_ += static_cast<std::size_t>(wrote);
      continue;
    }
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0 && errno == EAGAIN) break;
    // EPIPE: nobody reads its stdin any more; what waits is dropped, as a pipe would.
    close_stdin();
    return;
  }
  if (input_offset_ == pending_input_.size()) {
    pending_input_.clear();
    input_offset_ = 0;
    if (close_stdin_when_written_) close_stdin();
  } else if (input_offset_ >= (64u << 10) && input_offset_ * 2 >= pending_input_.size()) {
    pending_input_.erase(0, input_offset_);  // keeps the copying linear in the bytes written
    input_offset_ = 0;
  }
}

void ManagedProcess::close_stdin() {
  stdin_closed_ = true;
  pending_input_.clear();
  input_offset_ = 0;
  close_fd(stdin_fd_);
}

bool ManagedProcess::note_full_logs() {
  bool changed = false;
  const auto note = [&](const OutputStream& stream, const char* name) {
    if (!stream.log_limit_reached()) return;
    if (std::find(record_.logs_at_limit.begin(), record_.logs_at_limit.end(), name) !=
        record_.logs_at_limit.end()) {
      return;
    }
    record_.logs_at_limit.emplace_back(name);
    log_line("%s: the %s log reached 1 GiB and stops growing", id().c_str(), name);
    changed = true;
  };
  note(stdout_, record_.pty ? "output" : "stdout");
  note(stderr_, "stderr");
  return changed;
}

}  // namespace vc::exec_agent
