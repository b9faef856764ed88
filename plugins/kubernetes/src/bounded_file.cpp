// bounded_file.cpp — open without blocking, check it is a regular file, read at most the bound.
#include "bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vc::kubernetes {
namespace {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

ConfigError unreadable(int error_number) {
  if (error_number == ENOENT) return ConfigError{"does not exist"};
  return ConfigError{std::string("cannot be read: ") + std::strerror(error_number)};
}

}  // namespace

ConfigExpected<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes) {
  if (path.empty()) return ConfigError{"is an empty path"};
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  FileDescriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (file.get() < 0) return unreadable(errno);
  struct stat status {};
  if (::fstat(file.get(), &status) != 0) return unreadable(errno);
  if (S_ISDIR(status.st_mode)) return ConfigError{"is a folder, not a file"};
  if (!S_ISREG(status.st_mode)) return ConfigError{"is not a regular file"};
  const auto too_large = ConfigError{"is larger than " + describe_byte_count(max_bytes)};
  if (static_cast<std::size_t>(status.st_size) > max_bytes) return too_large;
  std::string bytes;
  char buffer[16384];
  while (true) {
    const ssize_t count = ::read(file.get(), buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return unreadable(errno);
    if (count == 0) break;
    // The file may grow while it is read: the bound holds whatever fstat said.
    if (bytes.size() + static_cast<std::size_t>(count) > max_bytes) return too_large;
    bytes.append(buffer, static_cast<std::size_t>(count));
  }
  return bytes;
}

std::string describe_byte_count(std::size_t bytes) {
  constexpr std::size_t kKiB = 1024;
  constexpr std::size_t kMiB = 1024 * kKiB;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= kKiB && bytes % kKiB == 0) return std::to_string(bytes / kKiB) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace vc::kubernetes
