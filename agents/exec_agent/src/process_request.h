// process_request.h — a request to the process supervisor, parsed and checked
// (docs/processes.md, "The supervisor's protocol" and "Limits and errors").
//
// Everything about a request's shape is checked here, before the supervisor acts on it: a
// request that passes can only fail for reasons of the computer or of the process it names.
// Errors name the field and, for a number, the allowed range. Fields the supervisor does not
// know are ignored, so a newer caller can add optional ones. Pure; any thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vc_agent_common/clock.h"

namespace vc::exec_agent {

using agent_common::Millis;

inline constexpr int kSupervisorProtocol = 1;

inline constexpr std::size_t kMaxArguments = 1024;
inline constexpr std::size_t kMaxArgumentBytes = 64u << 10;
inline constexpr std::size_t kMaxEnvironmentVariables = 64;
inline constexpr Millis kMaxWaitMs = 30'000;
inline constexpr Millis kDefaultWaitMs = 1000;
inline constexpr std::size_t kDefaultMaxBytes = 64u << 10;
inline constexpr std::size_t kMaxMaxBytes = 1u << 20;
inline constexpr std::size_t kMaxInputBytes = 64u << 10;

enum class RequestOp { kStart, kRead, kWrite, kKill, kList };

struct ProcessRequest {
  RequestOp op = RequestOp::kList;
  std::string process_id;  // read, write, kill

  // start
  std::vector<std::string> argv;  // non-empty; argv[0] looked up on PATH
  std::optional<std::string> cwd;
  std::vector<std::pair<std::string, std::string>> env;  // added to the supervisor's own
  bool pty = false;
  int rows = 24;
  int cols = 80;
  std::string command;  // for people: given, or the arguments joined

  // start, read, write
  Millis wait_ms = kDefaultWaitMs;
  std::size_t max_bytes = kDefaultMaxBytes;
  // read: where to read from instead of the shared cursor (which then stays where it is)
  std::optional<std::pair<std::uint64_t, std::uint64_t>> from;  // stdout, stderr

  // write
  std::string input;
  bool close_stdin = false;

  // kill
  int signal = 15;
};

struct ParsedProcessRequest {
  std::optional<ProcessRequest> request;
  std::string error;  // why it was refused (an invalid_argument), when `request` is empty
};

ParsedProcessRequest parse_process_request(std::string_view body);

// "TERM" for 15 and so on; "SIG<n>" for a signal without a name here.
std::string signal_name(int signal_number);

}  // namespace vc::exec_agent
