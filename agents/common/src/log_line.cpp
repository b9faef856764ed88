// log_line.cpp — log_line(): the line is assembled first and written with as few writes as the
// kernel allows (one for a pipe and any line up to PIPE_BUF).
#include "vc_agent_common/log_line.h"

#include <unistd.h>

#include <cerrno>
#include <string>

namespace vc::agent_common {

void log_line(std::string_view message) {
  std::string line;
  line.reserve(kProgramName.size() + 2 + message.size() + 1);
  line.append(kProgramName).append(": ").append(message).push_back('\n');
  const char* data = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t written = write(STDERR_FILENO, data, left);
    if (written <= 0) return;
    data += written;
    left -= static_cast<std::size_t>(written);
  }
}

}  // namespace vc::agent_common
