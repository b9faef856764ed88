// app_view_link.h — which tools the MCP App shows, and their `_meta` (docs/app.md, "Tools and
// the App"): a client that renders MCP Apps shows the App beside the results of these tools.
//
//   {"ui": {"visibility": ["model", "app"], "resourceUri": "ui://virtual-computer/computer.html"},
//    "openai/outputTemplate": "ui://virtual-computer/computer.html"}
//
// on terminal_execute, computer_ui, read_file, write_file, edit_file and the desktop tools that
// act (the original's set); not on the tools that only look (look_at_screen, zoom,
// cursor_position, wait_for_screen, clipboard_read), nor on app-only or lifecycle tools.
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "mcp/tool.h"

namespace vc::tools {

bool shown_in_app(const std::string& tool);
Json app_view_meta();

// `tool` with app_view_meta() as its `_meta` when shown_in_app(); otherwise `tool` itself.
// [loop-thread], like the tool it wraps.
std::unique_ptr<mcp::Tool> link_to_app(std::unique_ptr<mcp::Tool> tool);

}  // namespace vc::tools
