// plugin_file_check.h — what the file system says about a candidate plugin file, checked before
// any byte of it is read.
#pragma once

#include <filesystem>
#include <optional>

#include "common/failure.h"

namespace vc::plugins {

// [any-thread] Empty when `path` may be loaded; otherwise why not (message without the path):
// missing, not a regular file, or writable by other users. A plugin runs inside the host with
// the host's rights, so a file someone else can rewrite is refused like an untrusted binary.
// Writable by the file's group is accepted only when that group is the process's own group
// (the usual umask 002 with one group per user).
std::optional<Failure> check_plugin_file(const std::filesystem::path& path);

}  // namespace vc::plugins
