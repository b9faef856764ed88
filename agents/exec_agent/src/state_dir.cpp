// state_dir.cpp — finding, creating and checking the supervisor's state folder (state_dir.h).
#include "state_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace vc::exec_agent {
namespace {

bool is_directory(const char* path) {
  struct stat info {};
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

std::string describe_mode(mode_t mode) {
  char octal[8];
  std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode & 07777));
  return octal;
}

}  // namespace

std::string state_dir_path() {
  if (const char* chosen = std::getenv("VC_PROCESS_STATE_DIR"); chosen != nullptr && *chosen) {
    return chosen;
  }
  const std::string base = is_directory("/var/tmp") ? "/var/tmp" : "/tmp";
  return base + "/vc-processes-" + std::to_string(getuid());
}

std::optional<std::string> prepare_state_dir(const std::string& path) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return "cannot create the process state folder '" + path + "': " + std::strerror(errno);
  }
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) {
    return "cannot inspect the process state folder '" + path + "': " + std::strerror(errno);
  }
  if (!S_ISDIR(info.st_mode)) {
    return "the process state folder '" + path + "' is not a folder";
  }
  if (info.st_uid != getuid()) {
    return "the process state folder '" + path + "' belongs to uid " +
           std::to_string(info.st_uid) + ", not to this user (uid " + std::to_string(getuid()) +
           ")";
  }
  if ((info.st_mode & 077) != 0) {
    return "the process state folder '" + path + "' has mode " + describe_mode(info.st_mode) +
           ": others could use it; it must be 0700";
  }
  return std::nullopt;
}

}  // namespace vc::exec_agent
