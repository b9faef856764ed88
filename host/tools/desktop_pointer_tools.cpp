// desktop_pointer_tools.cpp — click, scroll, drag, mouse_move, mouse_button, cursor_position.
//
// Positions are read in the last screenshot's space (screen_space.h) or taken from an
// accessibility element; the agent gets screen pixels.
#include "tools/desktop_pointer_tools.h"

#include <functional>
#include <utility>

#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

constexpr const char* kButtons[] = {"left", "middle", "right"};

bool known_button(const std::string& button) {
  for (const char* known : kButtons) {
    if (button == known) return true;
  }
  return false;
}

Json element_property() {
  return bounded_string_property(
      "Element", "AT-SPI accessibility reference from look_at_screen, e.g. atspi:8/0/2.",
      kMaxSelectorCharacters);
}

Json coordinate_property(const char* axis) {
  return Json{{"description", std::string(axis) +
                                  " in the last screenshot's pixels (look_at_screen's scale)."},
              {"title", axis},
              {"type", "integer"}};
}

Json point_schema() {
  return Json{{"type", "object"},
              {"properties", {{"x", {{"type", "integer"}}}, {"y", {{"type", "integer"}}}}},
              {"required", {"x", "y"}}};
}

Json position_output(const ScreenSpace& space, ScreenPoint screen) {
  ScreenPoint seen = space.from_screen(screen.x, screen.y);
  return Json{{"x", seen.x}, {"y", seen.y}, {"screen_x", screen.x}, {"screen_y", screen.y}};
}

Json position_output_properties() {
  return Json{{"x", typed("integer", "x in the last screenshot's pixels.")},
              {"y", typed("integer", "y in the last screenshot's pixels.")},
              {"screen_x", typed("integer", "x in screen pixels.")},
              {"screen_y", typed("integer", "y in screen pixels.")}};
}

void click(const std::shared_ptr<DesktopCall>& call) {
  const std::string button = call->arguments().value("button", "left");
  if (!known_button(button)) return call->fail("button must be left, middle, or right.");
  const int64_t clicks = integer_argument(call->arguments(), "clicks").value_or(1);
  resolve_pointer_target(call, true, [call, button, clicks](std::optional<ScreenPoint> point) {
    if (!point) return call->fail("Element has no clickable screen bounds.");
    Json action{{"action", "click"},  {"x", point->x},           {"y", point->y},
                {"button", button},   {"clicks", clicks},
                {"modifiers", modifiers_argument(call->arguments())}};
    call->run(std::move(action), [call, button, clicks, point = *point](Json) {
      Json out{{"ok", true}, {"button", button}, {"clicks", clicks}};
      out.update(position_output(call->screen_space(), point));
      call->succeed(std::move(out));
    });
  });
}

void scroll(const std::shared_ptr<DesktopCall>& call) {
  const std::string direction = call->arguments().value("direction", "down");
  const int64_t amount = integer_argument(call->arguments(), "amount").value_or(3);
  resolve_pointer_target(call, false, [call, direction, amount](std::optional<ScreenPoint> point) {
    Json action{{"action", "scroll"},
                {"direction", direction},
                {"amount", amount},
                {"modifiers", modifiers_argument(call->arguments())}};
    if (point) {
      action["x"] = point->x;
      action["y"] = point->y;
    }
    call->run(std::move(action), [call, direction, amount](Json) {
      call->succeed(Json{{"ok", true}, {"direction", direction}, {"amount", amount}});
    });
  });
}

// drag: from/to, or a path of points; every point in the screenshot's space.
void drag(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  const std::string button = arguments.value("button", "left");
  Json points = Json::array();
  if (arguments.contains("path")) {
    for (const Json& point : arguments["path"]) points.push_back(point);
  } else if (arguments.contains("from") && arguments.contains("to")) {
    points.push_back(Json::array({arguments["from"]["x"], arguments["from"]["y"]}));
    points.push_back(Json::array({arguments["to"]["x"], arguments["to"]["y"]}));
  } else {
    return call->fail("Provide either from and to, or a path of at least two points.");
  }
  if (points.size() < 2) return call->fail("A drag path needs at least two points.");
  Json path = Json::array();
  for (const Json& point : points) {
    auto screen = call->screen_space().to_screen(point[0].get<int64_t>(), point[1].get<int64_t>());
    if (!screen) return call->fail(screen.error().message);
    path.push_back(Json::array({screen.value().x, screen.value().y}));
  }
  Json action{{"action", "drag"}, {"path", path}, {"button", button},
              {"modifiers", modifiers_argument(arguments)}};
  call->run(std::move(action), [call, button, points](Json) {
    call->succeed(Json{{"ok", true}, {"from", points.front()}, {"to", points.back()},
                       {"button", button}, {"points", points.size()}});
  });
}

void mouse_move(const std::shared_ptr<DesktopCall>& call) {
  resolve_pointer_target(call, true, [call](std::optional<ScreenPoint> point) {
    if (!point) return call->fail("Element has no screen bounds.");
    call->run(Json{{"action", "pointer_move"}, {"x", point->x}, {"y", point->y}},
              [call, point = *point](Json) {
                Json out{{"ok", true}};
                out.update(position_output(call->screen_space(), point));
                call->succeed(std::move(out));
              });
  });
}

void mouse_button(const std::shared_ptr<DesktopCall>& call) {
  const std::string button = call->arguments().value("button", "left");
  const std::string direction = call->arguments().at("direction").get<std::string>();
  resolve_pointer_target(call, false, [call, button, direction](std::optional<ScreenPoint> point) {
    Json action{{"action", "mouse_button"}, {"button", button}, {"direction", direction}};
    if (point) {
      action["x"] = point->x;
      action["y"] = point->y;
    }
    call->run(std::move(action), [call, button, direction](Json result) {
      Json out{{"ok", true}, {"button", button}, {"direction", direction}};
      if (result.contains("x") && result.contains("y") && result["x"].is_number_integer() &&
          result["y"].is_number_integer()) {
        out.update(position_output(call->screen_space(),
                                   ScreenPoint{result["x"].get<int64_t>(), result["y"].get<int64_t>()}));
      }
      call->succeed(std::move(out));
    });
  });
}

void cursor_position(const std::shared_ptr<DesktopCall>& call) {
  call->run(Json{{"action", "cursor_position"}}, [call](Json result) {
    const int64_t x = result.value("x", int64_t{0});
    const int64_t y = result.value("y", int64_t{0});
    call->succeed(position_output(call->screen_space(), ScreenPoint{x, y}));
  });
}

}  // namespace

void add_pointer_tools(const DesktopToolsContext& context,
                       std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  const auto add = std::bind_front(add_desktop_tool, std::cref(context), std::ref(tools));
  add(tool_definition(
          "click",
          "Click on the desktop: at an accessibility element from look_at_screen (its centre) or "
          "at x, y in the last screenshot's pixels. Hold modifiers (e.g. [\"ctrl\"]) for a "
          "ctrl-click; clicks 2 or 3 for a double or triple click.",
          object_schema("click",
                        input_properties(Json{{"element", element_property()},
                             {"x", coordinate_property("x")},
                             {"y", coordinate_property("y")},
                             {"button", choice_property("Button", "left, middle or right.",
                                                        {"left", "middle", "right"}, "left")},
                             {"clicks", integer_property("Clicks", "1 to 3.", 1, 3, 1)},
                             {"modifiers", modifiers_property()}}),
                        {}),
          desktop_output_schema(merged(Json{{"ok", typed("boolean", "True when the click was sent.")},
                                            {"button", typed("string", "The button clicked.")},
                                            {"clicks", typed("integer", "How many clicks.")}},
                                       position_output_properties())),
          acting_annotations()),
      click);
  add(tool_definition(
          "scroll",
          "Scroll with the mouse wheel, over an element or x, y when given (else where the "
          "pointer is).",
          object_schema(
              "scroll",
              input_properties(Json{{"direction", choice_property("Direction", "up, down, left or right.",
                                                 {"up", "down", "left", "right"}, "down")},
                   {"amount", integer_property("Amount", "Wheel steps, 1 to 50.", 1, 50, 3)},
                   {"element", element_property()},
                   {"x", coordinate_property("x")},
                   {"y", coordinate_property("y")},
                   {"modifiers", modifiers_property()}}),
              {}),
          desktop_output_schema(Json{{"ok", typed("boolean", "True when the wheel turned.")},
                                     {"direction", typed("string", "The direction.")},
                                     {"amount", typed("integer", "Wheel steps.")}}),
          acting_annotations()),
      scroll);
  add(tool_definition(
          "drag",
          "Press a mouse button at one point, move through the path and release at the last "
          "point (move a window by its title bar, select text, drag a file). Points are in the "
          "last screenshot's pixels.",
          object_schema(
              "drag",
              input_properties(Json{{"from", point_schema()},
                   {"to", point_schema()},
                   {"path", {{"type", "array"},
                             {"minItems", 2},
                             {"maxItems", 100},
                             {"description", "Points [x, y] to move through, in order."},
                             {"items", {{"type", "array"}, {"minItems", 2}, {"maxItems", 2},
                                        {"items", {{"type", "integer"}}}}}}},
                   {"button", choice_property("Button", "left, middle or right.",
                                              {"left", "middle", "right"}, "left")},
                   {"modifiers", modifiers_property()}}),
              {}),
          desktop_output_schema(Json{{"ok", typed("boolean", "True when the drag was done.")},
                                     {"from", typed("array", "The first point.")},
                                     {"to", typed("array", "The last point.")},
                                     {"button", typed("string", "The button held.")},
                                     {"points", typed("integer", "Points moved through.")}}),
          acting_annotations()),
      drag);
  add(tool_definition("mouse_move",
                      "Move the pointer to x, y (last screenshot's pixels) or over an element, "
                      "e.g. to show a tooltip or open a hover menu.",
                      object_schema("mouse_move",
                                    input_properties(Json{{"element", element_property()},
                                         {"x", coordinate_property("x")},
                                         {"y", coordinate_property("y")}}),
                                    {}),
                      desktop_output_schema(merged(Json{{"ok", typed("boolean", "True when moved.")}},
                                                   position_output_properties())),
                      acting_annotations()),
      mouse_move);
  add(tool_definition(
          "mouse_button",
          "Press or release a mouse button without the other half, for holds and drags the "
          "other tools cannot express. Moves to x, y or an element first when given.",
          object_schema("mouse_button",
                        input_properties(Json{{"button", choice_property("Button", "left, middle or right.",
                                                        {"left", "middle", "right"}, "left")},
                             {"direction", choice_property("Direction", "down or up.",
                                                           {"down", "up"}, nullptr)},
                             {"element", element_property()},
                             {"x", coordinate_property("x")},
                             {"y", coordinate_property("y")}}),
                        {"direction"}),
          desktop_output_schema(merged(Json{{"ok", typed("boolean", "True when sent.")},
                                            {"button", typed("string", "The button.")},
                                            {"direction", typed("string", "down or up.")}},
                                       position_output_properties())),
          acting_annotations()),
      mouse_button);
  add(tool_definition("cursor_position",
                      "Where the mouse pointer is, in the last screenshot's pixels and in "
                      "screen pixels.",
                      object_schema("cursor_position", Json::object(), {}),
                      desktop_output_schema(position_output_properties()), looking_annotations()),
      cursor_position);
}

}  // namespace vc::tools
