#include "plugin_loader/plugin_file_check.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>

#include <vc-backend-1/vc_status.h>

namespace vc::plugins {

namespace {

namespace fs = std::filesystem;

std::string octal_mode(mode_t mode) {
  char text[8];
  std::snprintf(text, sizeof text, "%04o", static_cast<unsigned>(mode & 07777));
  return text;
}

std::optional<Failure> check_file_type(const fs::path& path) {
  std::error_code error;
  const fs::file_status target = fs::status(path, error);
  if (target.type() == fs::file_type::not_found) {
    std::error_code link_error;
    if (fs::is_symlink(fs::symlink_status(path, link_error))) {
      return Failure{VC_E_NOT_FOUND, "no such file (it is a symbolic link to a missing file)"};
    }
    return Failure{VC_E_NOT_FOUND, "no such file"};
  }
  if (error) return Failure{VC_E_PERMISSION, "cannot inspect the file: " + error.message()};
  if (target.type() == fs::file_type::directory) {
    return Failure{VC_E_INVALID_ARGUMENT, "not a regular file (it is a directory)"};
  }
  if (target.type() != fs::file_type::regular) {
    return Failure{VC_E_INVALID_ARGUMENT, "not a regular file"};
  }
  return std::nullopt;
}

std::optional<Failure> check_file_writers(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Failure{VC_E_PERMISSION, "cannot inspect the file: " +
                                        std::error_code(errno, std::generic_category()).message()};
  }
  const bool world_writable = (info.st_mode & S_IWOTH) != 0;
  const bool foreign_group_writable = (info.st_mode & S_IWGRP) != 0 && info.st_gid != ::getegid();
  if (world_writable || foreign_group_writable) {
    return Failure{VC_E_PERMISSION, "refusing a file other users can modify (mode " +
                                        octal_mode(info.st_mode) + "); run: chmod go-w " +
                                        path.string()};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Failure> check_plugin_file(const fs::path& path) {
  if (auto refusal = check_file_type(path)) return refusal;
  return check_file_writers(path);
}

}  // namespace vc::plugins
