// desktop_window_tools.cpp — list_windows and the window switches: switch, move, maximize,
// restore, minimize, close. A window is named by id, exact title or class, or an unambiguous
// substring (window_selector.h). Window geometry is in screen pixels, as list_windows gives it.
#include "tools/desktop_window_tools.h"

#include <functional>
#include <utility>

#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"
#include "tools/window_selector.h"

namespace vc::tools {
namespace {

Json window_property() {
  return bounded_string_property(
      "Window", "Window ID, exact title/class, or an unambiguous substring.",
      kMaxSelectorCharacters);
}

Json window_object_schema() {
  return Json{{"type", "object"},
              {"description", "window_id, desktop, x, y, width, height, wm_class, title, "
                              "active, states, pid"}};
}

void list_windows(const std::shared_ptr<DesktopCall>& call) {
  call->run(Json{{"action", "list_windows"}}, [call](Json result) {
    call->succeed(Json{{"windows", result.value("windows", Json::array())}});
  });
}

// Finds the window, then runs `action` on it ("activate", "move", ...), answering with the
// window as it was before (the original's shape).
void window_action(const std::shared_ptr<DesktopCall>& call, const std::string& tool_action,
                   const std::string& agent_action) {
  const std::string selector = call->arguments().at("window").get<std::string>();
  call->run(Json{{"action", "list_windows"}}, [call, selector, tool_action,
                                                agent_action](Json listing) {
    auto window = select_window(listing.value("windows", Json::array()), selector);
    if (!window) return call->fail(window.error().message);
    Json action{{"action", "window_action"},
                {"window_id", window.value().value("window_id", "")},
                {"operation", agent_action}};
    if (agent_action == "move") {
      const Json& arguments = call->arguments();
      for (const char* key : {"x", "y", "width", "height"}) {
        if (arguments.contains(key)) action[key] = arguments[key];
      }
    }
    call->run(std::move(action), [call, tool_action, before = window.value()](Json) {
      call->succeed(Json{{"ok", true}, {"action", tool_action}, {"window", before}});
    });
  });
}

mcp::ToolDefinition switch_definition(const char* name, const char* description) {
  return tool_definition(name, description,
                         object_schema(name, observing_properties(Json{{"window", window_property()}}),
                                       {"window"}),
                         desktop_output_schema(Json{{"ok", typed("boolean", "True when done.")},
                                                    {"action", typed("string", "What was done.")},
                                                    {"window", window_object_schema()}}),
                         acting_annotations());
}

}  // namespace

void add_window_tools(const DesktopToolsContext& context,
                      std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  const auto add = std::bind_front(add_desktop_tool, std::cref(context), std::ref(tools));
  add(tool_definition("list_windows",
                      "List the desktop's windows: id, title, class, geometry in screen pixels, "
                      "workspace, whether active, and states (maximized, hidden, ...).",
                      object_schema("list_windows", Json::object(), {}),
                      desktop_output_schema(Json{{"windows", {{"type", "array"},
                                                              {"items", window_object_schema()}}}}),
                      looking_annotations()),
      list_windows);
  struct Switch {
    const char* name;
    const char* description;
    const char* tool_action;
    const char* agent_action;
  };
  const Switch switches[] = {
      {"switch_window", "Bring a window to the front and focus it.", "switch", "activate"},
      {"maximize_window", "Maximize a window.", "maximize", "maximize"},
      {"restore_window", "Restore a maximized or minimized window to its normal size and focus it.",
       "restore", "restore"},
      {"minimize_window", "Minimize a window.", "minimize", "minimize"},
      {"close_window", "Close a window, as its close button would (the application may ask to "
                       "save).", "close", "close"},
  };
  for (const Switch& each : switches) {
    add(switch_definition(each.name, each.description),
        [tool_action = std::string(each.tool_action),
         agent_action = std::string(each.agent_action)](const std::shared_ptr<DesktopCall>& call) {
          window_action(call, tool_action, agent_action);
        });
    if (std::string(each.name) == "switch_window") {
      add(tool_definition(
              "move_window",
              "Move a window to x, y (screen pixels, its frame's top left) and optionally resize "
              "it.",
              object_schema("move_window",
                            observing_properties(
                                Json{{"window", window_property()},
                                     {"x", integer_property("X", "Left edge, screen pixels.")},
                                     {"y", integer_property("Y", "Top edge, screen pixels.")},
                                     {"width", integer_property("Width", "New width (>= 1).", 1)},
                                     {"height", integer_property("Height", "New height (>= 1).", 1)}}),
                            {"window", "x", "y"}),
              desktop_output_schema(Json{{"ok", typed("boolean", "True when done.")},
                                         {"action", typed("string", "\"move\".")},
                                         {"window", window_object_schema()}}),
              acting_annotations()),
          [](const std::shared_ptr<DesktopCall>& call) { window_action(call, "move", "move"); });
    }
  }
}

}  // namespace vc::tools
