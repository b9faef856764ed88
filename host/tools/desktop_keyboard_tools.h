// desktop_keyboard_tools.h — type, press_keys, clipboard_read, clipboard_write.
// One group of the desktop tools (desktop_tools.h).
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

// [loop-thread] Appends the group's tools to `tools`, in tools/list order.
void add_keyboard_tools(const DesktopToolsContext& context, std::vector<std::unique_ptr<mcp::Tool>>& tools);

}  // namespace vc::tools
