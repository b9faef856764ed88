// local_command.h — runs one command as a child process of the server, streaming its output.
//
// Replace this file with your engine's way of running a command. It shows the rules a command
// runner keeps inside the host's process: posix_spawn (no fork of a threaded host), a process
// group of its own (a timeout, the output limit or a cancel kills everything the command
// started), reset signal dispositions, close-on-exec descriptors, reaping only its own child.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc-backend-1/vc_op.h>

namespace example_backend {

struct CommandRun {
  std::vector<std::string> argv;
  std::string working_directory;
  std::string_view stdin_bytes;  // empty: the command reads /dev/null
  int64_t timeout_ms = 0;
};

struct CommandEnd {
  int exit_code = 0;               // 128+N when killed by signal N; 127 when it could not start
  const char* outcome = "exited";  // "exited", "timed_out" or "output_limit_exceeded"
  bool cancelled = false;
  int64_t duration_ms = 0;
};

// Takes bytes for the host, waiting while its buffer is full; answers VC_OK, or
// VC_NOTE_TRUNCATED when the host's output limit is reached (the host counts it).
using EmitOutput = std::function<vc_status(vc_stream stream, std::string_view bytes)>;

// [worker] Blocks until the command ended. `scope` is how a cancel kills it.
CommandEnd run_local_command(const CommandRun& run, const EmitOutput& emit,
                             vc::sdk::CancelScope& scope);

}  // namespace example_backend
