// terminal_execute_definition.h — what tools/list says about terminal_execute.
#pragma once

#include <string>

#include "mcp/tool.h"

namespace vc::tools {

// The input schema is the original's (every parameter optional, declared the way FastMCP
// generated it, with "default": null and no "required"); the output schema admits both the
// success and the error payload, since MCP requires structuredContent to conform to it.
mcp::ToolDefinition terminal_execute_definition(std::string description);

}  // namespace vc::tools
