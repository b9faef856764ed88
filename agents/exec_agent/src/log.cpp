// log.cpp — the exec agent's printf-style front of the agents' shared log line (log_line.h of
// agents/common): formats into a fixed buffer, so a line never allocates more than the one
// string the shared writer assembles. Single-threaded, like the whole agent.
#include "log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "vc_agent_common/log_line.h"

namespace vc::agent_common {
constinit const std::string_view kProgramName = "vc-exec-agent";
}  // namespace vc::agent_common

namespace vc::exec_agent {
namespace {

std::size_t log_file_bound = 0;  // 0: stderr is not a file of ours; never truncated

// The file is opened with O_APPEND, so after the truncation the next line lands at its start.
void keep_log_file_bounded(std::size_t next_line_bytes) {
  if (log_file_bound == 0) return;
  struct stat info {};
  if (fstat(STDERR_FILENO, &info) != 0 || !S_ISREG(info.st_mode)) return;
  if (static_cast<std::size_t>(info.st_size) + next_line_bytes > log_file_bound) {
    [[maybe_unused]] const int ignored = ftruncate(STDERR_FILENO, 0);
  }
}

}  // namespace

void bound_log_file(std::size_t max_bytes) { log_file_bound = max_bytes; }

void log_line(const char* format, ...) {
  // The whole line, "vc-exec-agent: " and the newline included, stays under 1 KiB: a pipe takes
  // it in one write.
  char message[1024 - sizeof "vc-exec-agent: "];
  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(message, sizeof message, format, args);
  va_end(args);
  const std::size_t length =
      written > 0 ? std::min(static_cast<std::size_t>(written), sizeof message - 1) : 0;
  keep_log_file_bounded(sizeof "vc-exec-agent: " + length);
  agent_common::log_line(std::string_view(message, length));
}

}  // namespace vc::exec_agent
