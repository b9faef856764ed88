// file_read.cpp — file reads with open/read, so a process that exits mid-read is an empty
// answer rather than an exception (file_read.h).
#include "file_read.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace vc::desktop_agent {

std::string read_file_or_empty(const std::string& path, std::size_t limit) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::string();
  std::string bytes;
  char buffer[4096];
  while (bytes.size() < limit) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  close(fd);
  if (bytes.size() > limit) bytes.resize(limit);
  return bytes;
}

}  // namespace vc::desktop_agent
