// desktop_element_tools.cpp — see desktop_element_tools.h.
#include "tools/desktop_element_tools.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <functional>
#include <utility>

#include "tools/desktop_screen_snapshot.h"
#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

constexpr int64_t kMaxMatches = 200;
// wait_for_element looks again after each change of the screen, or after this long.
constexpr int64_t kRecheckMs = 2000;

std::string folded(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

ElementQuery query_of(const Json& arguments) {
  ElementQuery query;
  query.role = arguments.value("role", "");
  query.name = arguments.value("name", "");
  query.state = arguments.value("state", "");
  query.limit = static_cast<size_t>(integer_argument(arguments, "limit").value_or(20));
  return query;
}

bool describes_something(const ElementQuery& query) {
  return !query.role.empty() || !query.name.empty() || !query.state.empty();
}

// The session's snapshot: scaled into its space and remembered for stale checks.
Json seen_snapshot(const std::shared_ptr<DesktopCall>& call, Json snapshot) {
  ScreenSpace& space = call->screen_space();
  Json shown = scale_snapshot(std::move(snapshot), space.scale());
  space.remember_elements(shown);
  return shown;
}

void find_elements(const std::shared_ptr<DesktopCall>& call) {
  const ElementQuery query = query_of(call->arguments());
  if (!describes_something(query)) return call->fail("Give a role, a name or a state to look for.");
  call->run(Json{{"action", "accessibility_snapshot"}}, [call, query](Json snapshot) {
    const Json shown = seen_snapshot(call, std::move(snapshot));
    ElementMatches matches = match_elements(shown, query);
    call->succeed(Json{{"elements", std::move(matches.elements)},
                       {"truncated", matches.truncated},
                       {"snapshot_truncated", shown.value("truncated", false)}});
  });
}

void element_action(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  const std::string ref = arguments.at("element").get<std::string>();
  const std::string operation = arguments.at("action").get<std::string>();
  Json action{{"action", "element_action"}, {"ref", ref}, {"operation", operation}};
  if (operation == "set_text") {
    if (!arguments.contains("text")) return call->fail("set_text needs the text.");
    action["text"] = arguments["text"];
  }
  if (auto seen = call->screen_space().element(ref)) {
    action["expect_role"] = seen->role;
    action["expect_name"] = seen->name;
  }
  call->run(std::move(action), [call](Json result) {
    call->succeed(Json{{"ok", true},
                       {"element", result.value("ref", "")},
                       {"action", result.value("operation", "")},
                       {"role", result.value("role", "")},
                       {"name", result.value("name", "")}});
  });
}

struct ElementWait {
  ElementQuery query;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  int64_t timeout_ms = 10000;

  int64_t waited_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start).count();
  }
};

void look_for_element(const std::shared_ptr<DesktopCall>& call, std::shared_ptr<ElementWait> wait) {
  call->run(Json{{"action", "accessibility_snapshot"}}, [call, wait](Json snapshot) {
    const Json shown = seen_snapshot(call, std::move(snapshot));
    ElementMatches matches = match_elements(shown, wait->query);
    if (!matches.elements.empty()) {
      return call->succeed(Json{{"found", true},
                                {"element", matches.elements[0]},
                                {"waited_ms", wait->waited_ms()}});
    }
    const int64_t left = wait->timeout_ms - wait->waited_ms();
    if (left <= 0) return call->succeed(Json{{"found", false}, {"waited_ms", wait->waited_ms()}});
    // Nothing changes in the tree without a change on the screen: look again after one.
    call->run(Json{{"action", "wait_for_screen"},
                   {"until", "change"},
                   {"stable_ms", 50},
                   {"timeout_ms", std::clamp<int64_t>(left, 100, kRecheckMs)}},
              [call, wait](Json) { look_for_element(call, wait); });
  });
}

void wait_for_element(const std::shared_ptr<DesktopCall>& call) {
  auto wait = std::make_shared<ElementWait>();
  wait->query = query_of(call->arguments());
  wait->query.limit = 1;
  wait->timeout_ms = integer_argument(call->arguments(), "timeout_ms").value_or(10000);
  if (!describes_something(wait->query)) return call->fail("Give a role, a name or a state to wait for.");
  look_for_element(call, std::move(wait));
}

Json query_properties() {
  return Json{{"role", bounded_string_property("Role", "The role, e.g. push button, menu item, "
                                                       "text, check box (any case).",
                                               kMaxSelectorCharacters)},
              {"name", bounded_string_property("Name", "A part of the element's name (any case).",
                                               kMaxSelectorCharacters)},
              {"state", choice_property("State", "Only elements in this state.",
                                        {"focused", "focusable", "enabled"}, nullptr)}};
}

Json element_output() {
  return typed("object", "ref, role, name, focused, focusable, enabled, bounds (in your last "
                         "screenshot's pixels), actions.");
}

}  // namespace

ElementMatches match_elements(const Json& snapshot, const ElementQuery& query) {
  ElementMatches matches;
  const std::string role = folded(query.role);
  const std::string name = folded(query.name);
  const Json& elements = snapshot.value("elements", Json::array());
  for (const Json& element : elements) {
    if (!element.is_object()) continue;
    if (!role.empty() && folded(element.value("role", "")) != role) continue;
    if (!name.empty() && folded(element.value("name", "")).find(name) == std::string::npos) continue;
    if (!query.state.empty() && !element.value(query.state, false)) continue;
    if (matches.elements.size() >= query.limit) {
      matches.truncated = true;
      break;
    }
    matches.elements.push_back(element);
  }
  return matches;
}

void add_element_tools(const DesktopToolsContext& context,
                       std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  const auto add = std::bind_front(add_desktop_tool, std::cref(context), std::ref(tools));
  Json find_input = query_properties();
  find_input["limit"] = integer_property("Limit", "At most this many elements, 1-200.", 1,
                                         kMaxMatches, 20);
  add(tool_definition(
          "find_elements",
          "Find windows' controls by role, name or state in the accessibility tree (instead of "
          "reading the whole snapshot): each with its ref for click, type and element_action, "
          "and its bounds in your last screenshot's pixels.",
          object_schema("find_elements", std::move(find_input), {}),
          desktop_output_schema(Json{{"elements", typed("array", "The matching elements.")},
                                     {"truncated", typed("boolean", "More matched than limit.")},
                                     {"snapshot_truncated",
                                      typed("boolean", "The tree was larger than one snapshot "
                                                       "holds (600 elements).")}}),
          looking_annotations()),
      find_elements);
  add(tool_definition(
          "element_action",
          "Act on an element by its ref, without coordinates: focus it, press it (its default "
          "action: a button's click, a menu item's activation) or set its text. A ref that no "
          "longer names the element your last look showed there is refused.",
          object_schema(
              "element_action",
              observing_properties(input_properties(Json{
                  {"element", bounded_string_property("Element", "Its ref, e.g. atspi:8/0/2.",
                                                      kMaxSelectorCharacters)},
                  {"action", choice_property("Action", "focus, press or set_text.",
                                             {"focus", "press", "set_text"}, nullptr)},
                  {"text", bounded_string_property("Text", "set_text: the new text, at most "
                                                           "10,000 characters.",
                                                   kMaxTypedCharacters)}})),
              {"element", "action"}),
          desktop_output_schema(Json{{"ok", typed("boolean", "True when done.")},
                                     {"element", typed("string", "The ref.")},
                                     {"action", typed("string", "What was done.")},
                                     {"role", typed("string", "The element's role.")},
                                     {"name", typed("string", "The element's name.")}}),
          acting_annotations()),
      element_action);
  Json wait_input = query_properties();
  wait_input["timeout_ms"] = integer_property("Timeout Ms", "How long to wait, 100-60000.", 100,
                                              60000, 10000);
  add(tool_definition(
          "wait_for_element",
          "Wait until an element with this role, name or state shows up in the accessibility "
          "tree (a dialog opened, a button enabled), looking again each time the screen "
          "changes; found false after timeout_ms.",
          object_schema("wait_for_element", std::move(wait_input), {}),
          desktop_output_schema(Json{{"found", typed("boolean", "Whether it showed up.")},
                                     {"element", element_output()},
                                     {"waited_ms", typed("integer", "How long it took.")}}),
          looking_annotations()),
      wait_for_element);
}

}  // namespace vc::tools
