// log.cpp — one write per line so that lines from the agent and its worker do not interleave.
#include "log.h"

#include <unistd.h>

namespace vca {

void log_line(const std::string& message) {
  std::string line = "vc-desktop-agent: " + message + "\n";
  const char* data = line.data();
  size_t left = line.size();
  while (left > 0) {
    ssize_t written = write(STDERR_FILENO, data, left);
    if (written <= 0) return;
    data += written;
    left -= static_cast<size_t>(written);
  }
}

}  // namespace vca
