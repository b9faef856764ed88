// managed_process.h — one process the supervisor holds: its record, its output streams, its
// input, and its end.
//
// A process's life, in the terms of docs/processes.md:
//   running  — output is read from its pipes (or its terminal) as it comes, whether anyone
//              asks or not, into its streams (memory and log); input written to it waits in
//              a queue (at most kMaxInputBacklog) until the process reads it.
//   exited   — its own process was reaped; what it wrote before is drained at once, and output
//              still arriving (from what it left behind) for kSettleMs more is part of its
//              "last output". Later output (a daemon holding its pipes) is still collected.
//   lost     — a process an earlier supervisor ran: only its record and its logs remain.
// Single-threaded (the supervisor's loop).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "output_stream.h"
#include "process_record.h"
#include "vc_agent_common/clock.h"

namespace vc::exec_agent {

using agent_common::Millis;

inline constexpr std::size_t kMaxInputBacklog = 1u << 20;
// After its own process is reaped, how long output may still arrive and count as its last.
inline constexpr Millis kSettleMs = 100;

enum class StreamId { kStdout, kStderr };

// Why input could not be taken: the error code of docs/processes.md and its sentence.
struct InputRefusal {
  std::string code;
  std::string message;
};

class ManagedProcess {
 public:
  // A process started by this supervisor: the descriptors are its (non-blocking, close-on-exec)
  // ends of the process's stdin and output; for a pty, stdin_fd and stdout_fd are the terminal
  // and stderr_fd is -1.
  ManagedProcess(ProcessRecord record, int stdin_fd, int stdout_fd, int stderr_fd);
  // A process an earlier supervisor ran, from its process.json; its logs' sizes are where its
  // streams stand.
  ManagedProcess(ProcessRecord record, const std::string& state_dir);
  ~ManagedProcess();
  ManagedProcess(const ManagedProcess&) = delete;
  ManagedProcess& operator=(const ManagedProcess&) = delete;

  // "" or why the logs cannot be opened.
  std::string open_logs(const std::string& state_dir);

  const ProcessRecord& record() const { return record_; }
  ProcessRecord& record() { return record_; }
  std::string id() const { return record_.id(); }
  bool running() const { return record_.state == ProcessState::kRunning; }
  // Ended, and its last output is in: no output descriptor is open, or kSettleMs have passed.
  bool settled(Millis now) const;
  std::optional<Millis> settle_deadline() const;
  // When output last arrived from it (monotonic; 0 before any).
  Millis last_output_at() const { return last_output_at_; }

  int stdin_fd() const { return stdin_fd_; }
  int stdout_fd() const { return stdout_fd_; }
  int stderr_fd() const { return stderr_fd_; }
  bool wants_to_write() const { return stdin_fd_ >= 0 && input_offset_ < pending_input_.size(); }

  void on_output_ready(StreamId stream);
  void on_input_writable();
  // Its own process was reaped with `wait_status`: records the end (the caller saves the
  // record) and drains what it wrote before.
  void on_leader_exit(int wait_status);

  // Queues `input` (and, with close_stdin, the end of its stdin after it).
  std::optional<InputRefusal> take_input(std::string_view input, bool close_stdin);

  OutputStream& stream(StreamId stream) { return stream == StreamId::kStdout ? stdout_ : stderr_; }
  const OutputStream& stream(StreamId stream) const {
    return stream == StreamId::kStdout ? stdout_ : stderr_;
  }
  // A log that reached its limit since the last call is noted in the record (true: save it).
  bool note_full_logs();

 private:
  enum class ReadOutcome { kData, kWouldBlock, kClosed };
  ReadOutcome read_output(StreamId stream);
  void write_pending_input();
  void close_stdin();
  void close_output(StreamId stream);

  ProcessRecord record_;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  OutputStream stdout_;
  OutputStream stderr_;

  std::string pending_input_;
  std::size_t input_offset_ = 0;
  bool close_stdin_when_written_ = false;
  bool stdin_closed_ = false;  // by close_stdin, or the process stopped reading it

  std::optional<Millis> reaped_at_;
  Millis last_output_at_ = 0;
};

}  // namespace vc::exec_agent
