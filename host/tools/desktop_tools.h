// desktop_tools.h — the tools that see and drive the computer's desktop (docs/desktop.md,
// "Desktop tools"): the original's eleven (look_at_screen, click, type, scroll, list_windows,
// switch_window, move_window, maximize_window, restore_window, minimize_window,
// close_window) and press_keys, drag, mouse_move, mouse_button, cursor_position, zoom,
// wait_for_screen, clipboard_read, clipboard_write and launch.
//
// They exist only while the desktop is live (desktop_tool_set.h). Each runs its actions on the
// desktop agent inside the computer through the computers room (desktop_action.h).
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

// In tools/list order; every tool's name is registered with the context's tool set as a
// desktop tool.
std::vector<std::unique_ptr<mcp::Tool>> make_desktop_tools(const DesktopToolsContext& context);

}  // namespace vc::tools
