// desktop_screen_tools.cpp — look_at_screen, zoom, wait_for_screen, launch.
//
// look_at_screen is how the model sees: a PNG of the screen (scaled down to max_edge when
// asked, with the scale reported and remembered for the pointer tools) and the accessibility
// snapshot, whose element bounds are given in the same space as the image.
#include "tools/desktop_screen_tools.h"

#include <cmath>
#include <functional>
#include <utility>

#include "tools/desktop_observation.h"
#include "tools/desktop_screen_snapshot.h"
#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

// zoom's longer edge unless asked otherwise: the common image budget of the models.
constexpr int64_t kZoomEdge = 1024;


// The image budget a call asks for, as the agent's screenshot takes it.
Json image_budget(const Json& arguments) {
  Json budget = Json::object();
  for (const char* key : {"format", "quality", "max_bytes"}) {
    if (arguments.contains(key) && !arguments[key].is_null()) budget[key] = arguments[key];
  }
  if (arguments.value("show_pointer", false)) budget["pointer"] = true;
  return budget;
}

void look_at_screen(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  const bool include_image = arguments.value("include_image", true);
  const bool include_accessibility = arguments.value("include_accessibility", true);
  if (!include_image && !include_accessibility) {
    return call->fail("Enable include_image, include_accessibility, or both.");
  }
  auto max_edge = integer_argument(arguments, "max_edge");
  auto result = std::make_shared<mcp::ToolResult>();
  auto structured = std::make_shared<Json>(call->identity());
  (*structured)["screen_image_uri"] = kScreenImageUri;
  (*structured)["accessibility_uri"] = kAccessibilityUri;

  auto conclude = [call, result, structured] {
    result->structured_content = *structured;
    call->finish(*result);
  };
  auto snapshot_then = [call, include_accessibility, result, structured, conclude](
                           std::function<void()> after) {
    if (!include_accessibility) return after();
    call->run(Json{{"action", "accessibility_snapshot"}},
              [call, result, structured, after](Json snapshot) {
                const double scale = call->screen_space().scale();
                Json shown = scale_snapshot(std::move(snapshot), scale);
                call->screen_space().remember_elements(shown);
                result->content.push_back(
                    Json{{"type", "text"}, {"text", shown.value("snapshot", "")}});
                (*structured)["accessibility"] = std::move(shown);
                after();
              });
  };
  if (!include_image) return snapshot_then(conclude);

  Json budget = image_budget(arguments);
  Json action = merged(Json{{"action", "screenshot"}}, budget);
  if (max_edge) action["max_edge"] = *max_edge;
  call->run(std::move(action), [call, max_edge, budget, result, structured, snapshot_then,
                                 conclude](Json shot) {
    call->screen_space().remember(shot.value("screen_width", int64_t{0}),
                                  shot.value("screen_height", int64_t{0}),
                                  shot.value("scale", 1.0));
    call->screen_space().remember_max_edge(max_edge);
    call->screen_space().remember_image_budget(budget);
    (*structured)["image"] = screenshot_facts(shot);
    // The snapshot text first, then the image, as the original ordered them.
    snapshot_then([result, shot, conclude] {
      result->content.push_back(screenshot_content(shot));
      conclude();
    });
  });
}

void zoom(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  const ScreenSpace& space = call->screen_space();
  auto corner = space.to_screen(arguments.at("x").get<int64_t>(), arguments.at("y").get<int64_t>());
  if (!corner) return call->fail(corner.error().message);
  Json region{{"x", corner.value().x},
              {"y", corner.value().y},
              {"width", space.length_to_screen(arguments.at("width").get<int64_t>())},
              {"height", space.length_to_screen(arguments.at("height").get<int64_t>())}};
  // Magnified: the region fills the budget's longer edge, so small text gains pixels.
  Json action = merged(Json{{"action", "screenshot"}, {"region", region}, {"magnify", true},
                            {"max_edge", integer_argument(arguments, "max_edge").value_or(kZoomEdge)}},
                       image_budget(arguments));
  call->run(std::move(action), [call](Json shot) {
    mcp::ToolResult result;
    Json payload = call->identity();
    payload["image"] = screenshot_facts(shot);
    result.content = Json::array({screenshot_content(shot)});
    result.structured_content = std::move(payload);
    call->finish(std::move(result));
  });
}

void wait_for_screen(const std::shared_ptr<DesktopCall>& call) {
  const Json& arguments = call->arguments();
  Json action{{"action", "wait_for_screen"},
              {"until", arguments.value("until", "change")},
              {"stable_ms", integer_argument(arguments, "stable_ms").value_or(500)},
              {"timeout_ms", integer_argument(arguments, "timeout_ms").value_or(10000)}};
  call->run(std::move(action), [call](Json result) {
    call->succeed(Json{{"result", result.value("result", "")},
                       {"waited_ms", result.value("waited_ms", int64_t{0})}});
  });
}

void launch(const std::shared_ptr<DesktopCall>& call) {
  const std::string target = call->arguments().at("target").get<std::string>();
  if (target.find_first_not_of(" \t") == std::string::npos) {
    return call->fail("target must name an application, a path or a URL.");
  }
  call->run(Json{{"action", "launch"}, {"target", target}}, [call, target](Json result) {
    Json out{{"ok", true},
             {"target", target},
             {"pid", result.value("pid", Json())},
             {"command", result.value("command", Json::array())},
             {"window", result.value("window", Json())}};
    if (result.contains("writable")) out["writable"] = result["writable"];
    call->succeed(std::move(out));
  });
}

Json max_edge_property() {
  return integer_property("Max Edge",
                          "Scale the image down so its longer side is at most this many pixels "
                          "(e.g. 1024); pointer tools then take coordinates in the scaled image.",
                          16, 8192);
}

// format, quality, max_bytes, show_pointer: the image budget of look_at_screen and zoom.
Json image_budget_properties(Json properties) {
  properties["format"] = choice_property(
      "Format", "png (exact), jpeg or webp (smaller, with quality).", {"png", "jpeg", "webp"}, "png");
  properties["quality"] = integer_property("Quality", "1-100, for jpeg and webp.", 1, 100, 80);
  properties["max_bytes"] = integer_property(
      "Max Bytes",
      "The largest image to return, 1024 bytes or more: above it the quality drops (to 25 at "
      "least), then the image shrinks; an image that cannot fit is an error.",
      1024, 64 * 1024 * 1024);
  properties["show_pointer"] =
      bool_property("Show Pointer", "Draw the mouse pointer into the image.", false);
  return properties;
}

}  // namespace

void add_screen_tools(const DesktopToolsContext& context,
                      std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  const auto add = std::bind_front(add_desktop_tool, std::cref(context), std::ref(tools));
  Json image_schema{{"type", "object"},
                    {"description", "width, height, screen_width, screen_height, scale, region"}};
  add(tool_definition(
          "look_at_screen",
          "Look at the computer's screen: a PNG screenshot and an accessibility snapshot of the "
          "windows and controls, each element with a ref (atspi:...) that click and type accept. "
          "With max_edge the image is scaled down and every pointer tool reads coordinates in "
          "the scaled image.",
          object_schema("look_at_screen",
                        image_budget_properties(
                            Json{{"include_image", bool_property("Include Image", "Return a PNG.", true)},
                                 {"include_accessibility",
                                  bool_property("Include Accessibility",
                                                "Return the accessibility snapshot.", true)},
                                 {"max_edge", max_edge_property()}}),
                        {}),
          desktop_output_schema(Json{{"screen_image_uri", typed("string", "Resource of the live screen.")},
                                     {"accessibility_uri", typed("string", "Resource of the snapshot.")},
                                     {"accessibility", typed("object", "The snapshot (at-spi-snapshot-v1).")},
                                     {"image", image_schema}}),
          looking_annotations()),
      look_at_screen);
  add(tool_definition(
          "zoom",
          "A region of the screen magnified to read small text: x, y, width, height in the last "
          "screenshot's pixels; the region is scaled (up or down) so its longer side is "
          "max_edge pixels (default 1024). Coordinates stay those of your last screenshot.",
          object_schema("zoom",
                        image_budget_properties(
                            Json{{"x", integer_property("X", "Left edge.")},
                                 {"y", integer_property("Y", "Top edge.")},
                                 {"width", integer_property("Width", "Width (>= 1).", 1)},
                                 {"height", integer_property("Height", "Height (>= 1).", 1)},
                                 {"max_edge", integer_property("Max Edge",
                                                               "The longer side of the image, "
                                                               "16-8192 (default 1024).",
                                                               16, 8192, kZoomEdge)}}),
                        {"x", "y", "width", "height"}),
          desktop_output_schema(Json{{"image", image_schema}}), looking_annotations()),
      zoom);
  add(tool_definition(
          "wait_for_screen",
          "Wait until the screen changes (until: change), or until it has stayed still for "
          "stable_ms (until: stable), at most timeout_ms. Use after an action instead of a fixed "
          "sleep.",
          object_schema("wait_for_screen",
                        Json{{"until", choice_property("Until", "change or stable.",
                                                       {"change", "stable"}, "change")},
                             {"stable_ms", integer_property("Stable Ms", "Quiet time that counts "
                                                                         "as stable, 50-60000.",
                                                            50, 60000, 500)},
                             {"timeout_ms", integer_property("Timeout Ms", "Longest wait, "
                                                                           "100-120000.",
                                                             100, 120000, 10000)}},
                        {}),
          desktop_output_schema(Json{{"result", typed("string", "changed, stable or timeout.")},
                                     {"waited_ms", typed("integer", "How long it waited.")}}),
          looking_annotations()),
      wait_for_screen);
  add(tool_definition(
          "launch",
          "Start an application (mousepad, xfce4-terminal, thunar, or any command) or open a "
          "path or URL with its default application, as xdg-open would. Returns once its "
          "window appears (up to 5 s).",
          object_schema("launch",
                        observing_properties(Json{{"target", bounded_string_property(
                                                              "Target", "Application, path or URL.",
                                                              kMaxLaunchTargetCharacters)}}),
                        {"target"}),
          desktop_output_schema(Json{{"ok", typed("boolean", "True when started.")},
                                     {"target", typed("string", "What was launched.")},
                                     {"pid", typed(Json::array({"integer", "null"}), "Its process id.")},
                                     {"command", typed("array", "The command run.")},
                                     {"window", typed(Json::array({"object", "null"}),
                                                      "Its new window, when one appeared.")},
                                     {"writable", typed("boolean", "For a file: whether the desktop's "
                                                                   "user can save it.")}}),
          acting_annotations()),
      launch);
}

}  // namespace vc::tools
