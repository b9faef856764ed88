// log_level.h — the names of MCP's log levels (RFC 5424), for logging/setLevel and
// notifications/message.
#pragma once

#include <optional>
#include <string_view>

#include "mcp/tool.h"

namespace vc::mcp {

// "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency".
const char* log_level_name(LogLevel level);
std::optional<LogLevel> parse_log_level(std::string_view name);

}  // namespace vc::mcp
