// desktop_tools.cpp — the desktop tools in tools/list order: the original's eleven first, in
// its order, then the additions.
#include "tools/desktop_tools.h"

#include <algorithm>
#include <string>

#include "tools/desktop_batch_tool.h"
#include "tools/desktop_element_tools.h"
#include "tools/desktop_keyboard_tools.h"
#include "tools/desktop_pointer_tools.h"
#include "tools/desktop_screen_tools.h"
#include "tools/desktop_window_tools.h"

namespace vc::tools {
namespace {

// The original's order; tools not named here follow in the order they were made.
constexpr const char* kListOrder[] = {
    "look_at_screen",  "click",          "type",            "scroll",          "list_windows",
    "switch_window",   "move_window",    "maximize_window", "restore_window",  "minimize_window",
    "close_window",    "press_keys",     "drag",            "mouse_move",      "mouse_button",
    "cursor_position", "zoom",           "wait_for_screen", "clipboard_read",  "clipboard_write",
    "launch",          "desktop_actions", "find_elements",   "element_action",  "wait_for_element"};

size_t rank(const mcp::Tool& tool) {
  const std::string& name = tool.definition().name;
  for (size_t i = 0; i < std::size(kListOrder); ++i) {
    if (name == kListOrder[i]) return i;
  }
  return std::size(kListOrder);
}

}  // namespace

std::vector<std::unique_ptr<mcp::Tool>> make_desktop_tools(const DesktopToolsContext& context) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  add_screen_tools(context, tools);
  add_pointer_tools(context, tools);
  add_keyboard_tools(context, tools);
  add_window_tools(context, tools);
  add_batch_tool(context, tools);
  add_element_tools(context, tools);
  std::stable_sort(tools.begin(), tools.end(),
                   [](const auto& a, const auto& b) { return rank(*a) < rank(*b); });
  for (const auto& tool : tools) context.tool_set->add_desktop_tool(tool->definition().name);
  return tools;
}

}  // namespace vc::tools
