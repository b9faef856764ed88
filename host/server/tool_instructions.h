// tool_instructions.h — the backend's description of its computer, asked for once at startup
// (it becomes terminal_execute's description; docs/compatibility.md, "Tool description").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <uv.h>

#include "common/failure.h"
#include "backend_proxy/backend.h"

namespace vc::server {

// [loop-thread] Starts the tool_instructions operation and runs `loop` until it completes
// (startup only: nothing else needs the loop yet), giving up after `limit_ms`.
// nullopt when the backend has no text for this configuration (null or empty).
Expected<std::optional<std::string>> fetch_tool_instructions(uv_loop_t* loop,
                                                             backend_proxy::Backend& backend,
                                                             const std::string& shell,
                                                             int64_t default_timeout_s,
                                                             uint64_t limit_ms = 30000);

}  // namespace vc::server
