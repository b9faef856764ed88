// command_result.h — the exec op's result document, whichever path ran the command (the
// engine's exec, or the exec agent). Pure; any thread.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

namespace vc::agent_channel {

// {"exit_code", "outcome", "duration_ms"} (schemas/exec.result.json).
inline nlohmann::json exec_result(std::int64_t exit_code, const char* outcome,
                                  std::int64_t duration_ms) {
  return nlohmann::json{
      {"exit_code", exit_code}, {"outcome", outcome}, {"duration_ms", duration_ms}};
}

}  // namespace vc::agent_channel
