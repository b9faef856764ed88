// desktop_tool_support.cpp — see desktop_tool_support.h.
#include "tools/desktop_tool_support.h"

#include <iterator>
#include <utility>

#include "tools/desktop_observation.h"

namespace vc::tools {

Json bounded_string_property(const char* title, const std::string& description,
                             int64_t max_characters) {
  return Json{{"description", description},
              {"maxLength", max_characters},
              {"title", title},
              {"type", "string"}};
}

Json integer_property(const char* title, const char* description, std::optional<int64_t> minimum,
                      std::optional<int64_t> maximum, std::optional<int64_t> fallback) {
  Json property{{"description", description}, {"title", title}, {"type", "integer"}};
  if (minimum) property["minimum"] = *minimum;
  if (maximum) property["maximum"] = *maximum;
  if (fallback) property["default"] = *fallback;
  return property;
}

Json choice_property(const char* title, const char* description, std::vector<std::string> choices,
                     const char* fallback) {
  Json property{{"description", description}, {"title", title}, {"type", "string"},
                {"enum", std::move(choices)}};
  if (fallback != nullptr) property["default"] = fallback;
  return property;
}

Json modifiers_property() {
  return Json{{"description", "Keys held down during the action."},
              {"title", "Modifiers"},
              {"type", "array"},
              {"maxItems", 4},
              {"items", {{"type", "string"}, {"enum", {"ctrl", "shift", "alt", "super"}}}}};
}

Json observing_properties(Json properties) {
  properties["observe"] = choice_property(
      "Observe",
      "What to return of the screen once the action is done and the screen has settled: "
      "none, screenshot (in the coordinate space of your last look_at_screen), "
      "accessibility, or both. Saves a look_at_screen call.",
      {std::begin(kObserveChoices), std::end(kObserveChoices)}, "none");
  return properties;
}

Json input_properties(Json properties) {
  properties["settle"] = Json{
      {"description",
       "Return once the application has taken the input and the screen has settled (at most "
       "3 s), with effect telling whether anything changed on the screen. false returns as "
       "soon as the input is sent."},
      {"title", "Settle"},
      {"type", "boolean"},
      {"default", true}};
  return observing_properties(std::move(properties));
}

void add_desktop_tool(const DesktopToolsContext& context,
                      std::vector<std::unique_ptr<mcp::Tool>>& tools,
                      mcp::ToolDefinition definition, DesktopHandler handler) {
  tools.push_back(std::make_unique<DesktopTool>(context, std::move(definition), std::move(handler)));
}

Json merged(Json base, const Json& more) {
  base.update(more);
  return base;
}

Json desktop_output_schema(Json properties) {
  properties["computer_id"] = Json{{"type", "string"}, {"description", "The computer's name."}};
  properties["desktop_url"] =
      Json{{"type", {"string", "null"}}, {"description", "URL of the live desktop, or null."}};
  properties["error"] =
      Json{{"type", "string"}, {"description", "Present only when the call failed; says why."}};
  if (!properties.contains("effect")) {
    properties["effect"] = Json{{"type", "boolean"},
                                {"description", "After input that settled: whether anything "
                                                "on the screen changed."}};
  }
  if (!properties.contains("coordinates")) {
    properties["coordinates"] =
        Json{{"type", {"object", "null"}},
             {"description", "After input: the space coordinates are read in, {width, height, "
                             "scale} of your last screenshot; null before any."}};
  }
  if (!properties.contains("observation")) {
    properties["observation"] =
        Json{{"type", "object"},
             {"description", "With observe: the facts of the screenshot (image) and the "
                             "accessibility snapshot returned."}};
  }
  return Json{{"type", "object"}, {"properties", std::move(properties)}};
}

Json acting_annotations() {
  return Json{{"readOnlyHint", false}, {"destructiveHint", false}, {"idempotentHint", false},
              {"openWorldHint", false}};
}

Json looking_annotations() {
  return Json{{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true},
              {"openWorldHint", false}};
}

int64_t code_points(const std::string& text) {
  int64_t count = 0;
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++count;
  }
  return count;
}

std::optional<int64_t> integer_argument(const Json& arguments, const char* key) {
  auto it = arguments.find(key);
  if (it == arguments.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

Json modifiers_argument(const Json& arguments) {
  auto it = arguments.find("modifiers");
  return it != arguments.end() && it->is_array() ? *it : Json::array();
}

void resolve_pointer_target(const std::shared_ptr<DesktopCall>& call, bool required,
                            std::function<void(std::optional<ScreenPoint>)> done) {
  const Json& arguments = call->arguments();
  auto element = arguments.find("element");
  if (element != arguments.end() && element->is_string()) {
    call->run(Json{{"action", "element_bounds"}, {"ref", *element}},
              [done = std::move(done)](Json bounds) {
                const Json center = bounds.value("center", Json::array());
                if (center.is_array() && center.size() == 2 && center[0].is_number_integer() &&
                    center[1].is_number_integer()) {
                  return done(ScreenPoint{center[0].get<int64_t>(), center[1].get<int64_t>()});
                }
                done(std::nullopt);
              });
    return;
  }
  auto x = integer_argument(arguments, "x");
  auto y = integer_argument(arguments, "y");
  if (x && y) {
    auto point = call->screen_space().to_screen(*x, *y);
    if (!point) return call->fail(point.error().message);
    return done(point.value());
  }
  if (required || x || y) return call->fail("Provide either element or both x and y coordinates.");
  done(std::nullopt);
}

}  // namespace vc::tools
