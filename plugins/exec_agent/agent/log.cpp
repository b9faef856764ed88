#include "log.h"

#include <unistd.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace vc::exec_agent {

void log_line(const char* format, ...) {
  static constexpr char kPrefix[] = "vc-exec-agent: ";
  char line[1024];
  std::memcpy(line, kPrefix, sizeof kPrefix - 1);
  std::size_t length = sizeof kPrefix - 1;

  va_list args;
  va_start(args, format);
  const int written = std::vsnprintf(line + length, sizeof line - length - 1, format, args);
  va_end(args);
  if (written > 0) {
    length += std::min(static_cast<std::size_t>(written), sizeof line - length - 2);
  }
  line[length++] = '\n';
  // One write, so concurrent writers to the same stderr never interleave inside a line. A log
  // line that cannot be written is dropped: there is nowhere else to report it.
  [[maybe_unused]] const ssize_t ignored = write(STDERR_FILENO, line, length);
}

}  // namespace vc::exec_agent
