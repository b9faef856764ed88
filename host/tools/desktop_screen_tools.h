// desktop_screen_tools.h — look_at_screen, zoom, wait_for_screen, launch.
// One group of the desktop tools (desktop_tools.h).
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

// [loop-thread] Appends the group's tools to `tools`, in tools/list order.
void add_screen_tools(const DesktopToolsContext& context, std::vector<std::unique_ptr<mcp::Tool>>& tools);

}  // namespace vc::tools
