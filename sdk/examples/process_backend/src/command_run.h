// command_run.h — runs one command as a child process of the host and streams its output.
//
// The child gets its own process group, so a timeout, the output limit or a cancel can kill
// everything the command started (kill(-pgid, SIGKILL)), not just the shell. Output is read in
// 8 KiB chunks with poll() and handed to an emit callback as raw bytes.
//
// Process etiquette inside the host's process (docs/plugin-authoring.md): no signal handlers,
// no waitpid(-1), no chdir/setenv; every descriptor is close-on-exec so that processes the host
// or other plugins spawn at the same moment do not inherit our pipes.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <vc-backend-1/vc_sdk.h>

#include "unique_fd.h"

namespace vc_process_backend {

struct CommandSpec {
  std::vector<std::string> argv;  // argv[0] is looked up in PATH when it has no slash
  std::string working_directory;  // must exist
  std::string stdin_bytes;        // empty: the command reads /dev/null
  int64_t timeout_ms = 0;
  uint64_t output_limit = 0;  // combined stdout+stderr bytes; 0 = no limit
};

enum class CommandEnd { exited, timed_out, output_limit_exceeded, cancelled, spawn_failed };

struct CommandReport {
  CommandEnd end = CommandEnd::exited;
  int exit_code = 0;  // 128+N when the command was killed by signal N
  int64_t duration_ms = 0;
  int spawn_errno = 0;  // set when end == spawn_failed
};

class CommandRun {
 public:
  // Returns the emit() status: VC_OK, VC_NOTE_TRUNCATED or VC_E_BACKPRESSURE.
  using Emit = std::function<vc_status(vc_stream stream, const char* data, size_t len)>;
  using IsCancelled = std::function<bool()>;

  CommandRun();  // throws std::system_error when no wake-up pipe can be made
  CommandRun(const CommandRun&) = delete;
  CommandRun& operator=(const CommandRun&) = delete;

  // [any-thread] Makes run() kill the command and return CommandEnd::cancelled promptly, also
  // when called before run() started.
  void interrupt();

  // [worker] Spawns the command and blocks until it ended and was reaped.
  CommandReport run(const CommandSpec& spec, const Emit& emit, const IsCancelled& is_cancelled);

 private:
  std::atomic<bool> interrupted_{false};
  UniqueFd wake_read_;
  UniqueFd wake_write_;
};

}  // namespace vc_process_backend
