// process_limits.h — the bounds of the processes extension's requests
// (ext/vc_backend_processes.h, schemas/start_process.request.json and its siblings).
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). The host
// checks a tool's arguments against the same numbers before any backend sees them, and the
// typed requests of requests.h check them again: a plugin never receives a request beyond them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace vc::sdk {

inline constexpr std::int64_t kProcessMaxWaitMs = 30000;
inline constexpr std::int64_t kProcessDefaultMaxBytes = 64 * 1024;
inline constexpr std::int64_t kProcessMaxMaxBytes = 1024 * 1024;
inline constexpr std::size_t kProcessMaxInputBytes = 64 * 1024;
inline constexpr std::size_t kProcessMaxArguments = 1024;
inline constexpr std::size_t kProcessMaxCommandBytes = 64 * 1024;  // the command, or all args
inline constexpr std::size_t kProcessMaxEnvironment = 64;
inline constexpr std::size_t kProcessMaxEnvironmentBytes = 64 * 1024;
inline constexpr std::int64_t kPtyMinRows = 2, kPtyMaxRows = 500, kPtyDefaultRows = 24;
inline constexpr std::int64_t kPtyMinCols = 10, kPtyMaxCols = 1000, kPtyDefaultCols = 80;

// [any-thread] A process id: "p" and a number from 1, without leading zeros, at most 10 digits.
inline bool is_valid_process_id(std::string_view id) {
  if (id.size() < 2 || id.size() > 11 || id.front() != 'p' || id[1] == '0') return false;
  for (char c : id.substr(1)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

inline constexpr const char* kProcessIdRule =
    "a process id is 'p' and a number, as process_start and process_list give it (for "
    "example \"p3\").";

// [any-thread] An environment variable's name: [A-Za-z_][A-Za-z0-9_]*, at most 255 characters.
inline bool is_valid_environment_name(std::string_view name) {
  if (name.empty() || name.size() > 255 || (name.front() >= '0' && name.front() <= '9')) {
    return false;
  }
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_';
    if (!ok) return false;
  }
  return true;
}

// [any-thread] The signals kill_process takes by name (without "SIG"), in this order.
inline constexpr std::string_view kProcessSignalNames[] = {
    "TERM", "KILL", "INT", "HUP", "QUIT", "USR1", "USR2", "STOP", "CONT", "WINCH"};

inline bool is_process_signal_name(std::string_view name) {
  for (auto known : kProcessSignalNames) {
    if (known == name) return true;
  }
  return false;
}

}  // namespace vc::sdk
