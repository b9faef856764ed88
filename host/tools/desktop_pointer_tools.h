// desktop_pointer_tools.h — click, scroll, drag, mouse_move, mouse_button,
// cursor_position.
// One group of the desktop tools (desktop_tools.h).
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

// [loop-thread] Appends the group's tools to `tools`, in tools/list order.
void add_pointer_tools(const DesktopToolsContext& context, std::vector<std::unique_ptr<mcp::Tool>>& tools);

}  // namespace vc::tools
