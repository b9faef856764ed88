// start_request.h — the `start` frame's JSON, parsed and validated (docs/exec-agent.md).
//
// Everything a command needs is checked here, before anything is forked: a request that passes
// can only fail later for reasons of the computer (a missing folder, a missing program), never
// for its shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vc_agent_common/clock.h"

namespace vc::exec_agent {

using agent_common::Millis;

struct StartRequest {
  std::vector<std::string> argv;  // non-empty; argv[0] is looked up on PATH (execvp)
  std::optional<std::string> cwd;
  std::vector<std::pair<std::string, std::string>> env;  // added to the agent's environment
  Millis timeout_ms = 0;                                 // 0: none
  std::uint64_t output_limit = 0;                        // stdout + stderr bytes; 0: none
  bool stdin_open = false;  // "stdin": bytes come in `stdin` frames; otherwise /dev/null
};

struct ParsedStartRequest {
  std::optional<StartRequest> request;
  std::string error;  // why the payload was refused, when `request` is empty
};

ParsedStartRequest parse_start_request(std::string_view payload);

}  // namespace vc::exec_agent
