// tool_instructions.h — the backend's description of its computer, asked for once at startup
// (it becomes terminal_execute's description; docs/compatibility.md, "Tool description").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <uv.h>

#include "common/failure.h"
#include "computers/computer_registry.h"

namespace vc::computers {

// [loop-thread] Asks the registry's backend to describe the registry's computer (its shell and
// default timeout) and runs `loop` until it answers (startup only: nothing else needs the loop
// yet), giving up after `limit_ms`. nullopt when the backend has no text for this
// configuration (null or empty).
Expected<std::optional<std::string>> fetch_tool_instructions(uv_loop_t* loop,
                                                             const ComputerRegistry& registry,
                                                             uint64_t limit_ms = 30000);

}  // namespace vc::computers
