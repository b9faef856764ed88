// desktop_batch_steps.cpp — see desktop_batch_steps.h.
#include "tools/desktop_batch_steps.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <variant>

#include <vc-backend-1/vc_status.h>

#include "tools/desktop_screen_snapshot.h"
#include "tools/desktop_tool_support.h"

namespace vc::tools {
namespace {

// A step's check failed: the message without the "Step N (name): " prefix.
struct StepError {
  std::string message;
};

using StepResult = std::variant<BatchStep, StepError>;

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The arguments one step reads; any other is refused, so a misspelt name is not ignored.
class StepArguments {
 public:
  StepArguments(const Json& step, std::set<std::string> allowed)
      : step_(step), allowed_(std::move(allowed)) {}

  std::optional<StepError> unknown() const {
    for (const auto& [key, value] : step_.items()) {
      if (key != "action" && allowed_.count(key) == 0) {
        std::string known;
        for (const std::string& name : allowed_) known += (known.empty() ? "" : ", ") + name;
        return StepError{"unknown argument '" + key.substr(0, 40) + "'" +
                         (known.empty() ? " (it takes none)." : "; it takes " + known + ".")};
      }
    }
    return std::nullopt;
  }
  bool has(const char* key) const { return step_.contains(key) && !step_[key].is_null(); }
  const Json& at(const char* key) const { return step_.at(key); }

 private:
  const Json& step_;
  std::set<std::string> allowed_;
};

// `coordinate`-like argument: [x, y] integers in the session's space, turned into screen pixels.
std::variant<ScreenPoint, StepError> point_argument(const StepArguments& args, const char* key,
                                                    const ScreenSpace& space) {
  const Json& value = args.at(key);
  if (!value.is_array() || value.size() != 2 || !value[0].is_number_integer() ||
      !value[1].is_number_integer()) {
    return StepError{std::string("'") + key + "' must be [x, y], two integers."};
  }
  auto point = space.to_screen(value[0].get<int64_t>(), value[1].get<int64_t>());
  if (!point) return StepError{point.error().message};
  return point.value();
}

// Held keys as the models write them ("ctrl", "ctrl+shift") → the agent's modifier names.
std::variant<Json, StepError> held_keys(const StepArguments& args) {
  Json modifiers = Json::array();
  if (!args.has("text")) return modifiers;
  const Json& text = args.at("text");
  if (!text.is_string()) return StepError{"'text' (the keys held) must be a string such as \"ctrl+shift\"."};
  static const std::map<std::string, std::string> kNames = {
      {"ctrl", "ctrl"},   {"control", "ctrl"}, {"shift", "shift"}, {"alt", "alt"},
      {"option", "alt"},  {"super", "super"},  {"win", "super"},   {"meta", "super"},
      {"cmd", "super"},   {"command", "super"}};
  const std::string keys = text.get<std::string>();
  if (keys.size() > 64) return StepError{"'text' (the keys held) is too long."};
  size_t start = 0;
  while (start <= keys.size()) {
    size_t end = keys.find('+', start);
    if (end == std::string::npos) end = keys.size();
    std::string name = lowercase(keys.substr(start, end - start));
    name.erase(0, name.find_first_not_of(' '));
    if (const size_t last = name.find_last_not_of(' '); last != std::string::npos) name.resize(last + 1);
    if (!name.empty()) {
      auto found = kNames.find(name);
      if (found == kNames.end()) {
        return StepError{"'" + name + "' cannot be held during a click; use ctrl, shift, alt or super."};
      }
      if (std::find(modifiers.begin(), modifiers.end(), found->second) == modifiers.end()) {
        modifiers.push_back(found->second);
      }
    }
    start = end + 1;
  }
  return modifiers;
}

std::variant<std::string, StepError> text_argument(const StepArguments& args, const char* key,
                                                   int64_t max_characters, const char* what) {
  if (!args.has(key) || !args.at(key).is_string()) {
    return StepError{std::string("'") + key + "' (" + what + ") is required, as a string."};
  }
  const std::string text = args.at(key).get<std::string>();
  if (text.find_first_not_of(" \t") == std::string::npos) {
    return StepError{std::string("'") + key + "' (" + what + ") must not be empty."};
  }
  const int64_t length = code_points(text);
  if (length > max_characters) {
    return StepError{std::string("'") + key + "' is too long (" + std::to_string(length) +
                     " characters, at most " + std::to_string(max_characters) + ")."};
  }
  return text;
}

std::variant<int64_t, StepError> integer_argument_in(const StepArguments& args, const char* key,
                                                     int64_t min, int64_t max, int64_t fallback) {
  if (!args.has(key)) return fallback;
  const Json& value = args.at(key);
  if (!value.is_number_integer() || value.get<int64_t>() < min || value.get<int64_t>() > max) {
    return StepError{std::string("'") + key + "' must be an integer from " + std::to_string(min) +
                     " to " + std::to_string(max) + "."};
  }
  return value.get<int64_t>();
}

// `duration` in seconds (the models' unit) → milliseconds.
std::variant<int64_t, StepError> duration_ms(const StepArguments& args, double max_seconds) {
  if (!args.has("duration")) return StepError{"'duration' (seconds) is required."};
  const Json& value = args.at("duration");
  if (!value.is_number() || !(value.get<double>() >= 0.0) || value.get<double>() > max_seconds) {
    return StepError{"'duration' must be a number of seconds from 0 to " +
                     std::to_string(static_cast<int>(max_seconds)) + "."};
  }
  return static_cast<int64_t>(std::llround(value.get<double>() * 1000.0));
}

template <typename T>
const StepError* error_of(const std::variant<T, StepError>& value) {
  return std::get_if<StepError>(&value);
}

// ---- the steps ----------------------------------------------------------------------------

using StepPlanner = std::function<StepResult(const Json& step, const ScreenSpace& space)>;

StepResult plan_click(const Json& raw, const ScreenSpace& space, const std::string& button,
                      int clicks) {
  StepArguments args(raw, {"coordinate", "text"});
  if (auto bad = args.unknown()) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "click"}, {"button", button}, {"clicks", clicks}};
  if (args.has("coordinate")) {
    auto point = point_argument(args, "coordinate", space);
    if (auto bad = error_of(point)) return *bad;
    step.point = std::get<ScreenPoint>(point);
    step.agent_action["x"] = step.point->x;
    step.agent_action["y"] = step.point->y;
  }
  auto modifiers = held_keys(args);
  if (auto bad = error_of(modifiers)) return *bad;
  step.agent_action["modifiers"] = std::get<Json>(modifiers);
  step.fields = Json{{"button", button}, {"clicks", clicks}};
  return step;
}

StepResult plan_mouse_button(const Json& raw, const ScreenSpace& space, const char* direction) {
  StepArguments args(raw, {"coordinate"});
  if (auto bad = args.unknown()) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "mouse_button"}, {"button", "left"}, {"direction", direction}};
  if (args.has("coordinate")) {
    auto point = point_argument(args, "coordinate", space);
    if (auto bad = error_of(point)) return *bad;
    step.point = std::get<ScreenPoint>(point);
    step.agent_action["x"] = step.point->x;
    step.agent_action["y"] = step.point->y;
  }
  step.fields = Json{{"button", "left"}, {"direction", direction}};
  return step;
}

StepResult plan_mouse_move(const Json& raw, const ScreenSpace& space) {
  StepArguments args(raw, {"coordinate"});
  if (auto bad = args.unknown()) return *bad;
  if (!args.has("coordinate")) return StepError{"'coordinate' [x, y] is required."};
  auto point = point_argument(args, "coordinate", space);
  if (auto bad = error_of(point)) return *bad;
  BatchStep step;
  step.point = std::get<ScreenPoint>(point);
  step.agent_action = Json{{"action", "pointer_move"}, {"x", step.point->x}, {"y", step.point->y}};
  return step;
}

StepResult plan_drag(const Json& raw, const ScreenSpace& space) {
  StepArguments args(raw, {"start_coordinate", "coordinate", "text"});
  if (auto bad = args.unknown()) return *bad;
  if (!args.has("start_coordinate") || !args.has("coordinate")) {
    return StepError{"'start_coordinate' and 'coordinate' ([x, y] each) are required."};
  }
  auto from = point_argument(args, "start_coordinate", space);
  if (auto bad = error_of(from)) return *bad;
  auto to = point_argument(args, "coordinate", space);
  if (auto bad = error_of(to)) return *bad;
  auto modifiers = held_keys(args);
  if (auto bad = error_of(modifiers)) return *bad;
  const ScreenPoint start = std::get<ScreenPoint>(from);
  const ScreenPoint end = std::get<ScreenPoint>(to);
  BatchStep step;
  step.agent_action = Json{{"action", "drag"},
                           {"path", Json::array({Json::array({start.x, start.y}),
                                                 Json::array({end.x, end.y})})},
                           {"button", "left"},
                           {"modifiers", std::get<Json>(modifiers)}};
  step.point = end;
  step.fields = Json{{"from", args.at("start_coordinate")}, {"to", args.at("coordinate")}};
  return step;
}

StepResult plan_scroll(const Json& raw, const ScreenSpace& space) {
  StepArguments args(raw, {"scroll_direction", "scroll_amount", "coordinate", "text"});
  if (auto bad = args.unknown()) return *bad;
  static const std::set<std::string> kDirections = {"up", "down", "left", "right"};
  if (!args.has("scroll_direction") || !args.at("scroll_direction").is_string() ||
      kDirections.count(args.at("scroll_direction").get<std::string>()) == 0) {
    return StepError{"'scroll_direction' must be up, down, left or right."};
  }
  auto amount = integer_argument_in(args, "scroll_amount", 1, 50, 3);
  if (auto bad = error_of(amount)) return *bad;
  auto modifiers = held_keys(args);
  if (auto bad = error_of(modifiers)) return *bad;
  const std::string direction = args.at("scroll_direction").get<std::string>();
  BatchStep step;
  step.agent_action = Json{{"action", "scroll"},
                           {"direction", direction},
                           {"amount", std::get<int64_t>(amount)},
                           {"modifiers", std::get<Json>(modifiers)}};
  if (args.has("coordinate")) {
    auto point = point_argument(args, "coordinate", space);
    if (auto bad = error_of(point)) return *bad;
    step.point = std::get<ScreenPoint>(point);
    step.agent_action["x"] = step.point->x;
    step.agent_action["y"] = step.point->y;
  }
  step.fields = Json{{"direction", direction}, {"amount", std::get<int64_t>(amount)}};
  return step;
}

StepResult plan_key(const Json& raw) {
  StepArguments args(raw, {"text", "repeat"});
  if (auto bad = args.unknown()) return *bad;
  auto keys = text_argument(args, "text", kMaxKeysCharacters, "the keys, e.g. \"ctrl+s\"");
  if (auto bad = error_of(keys)) return *bad;
  auto repeat = integer_argument_in(args, "repeat", 1, 100, 1);
  if (auto bad = error_of(repeat)) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "press_keys"},
                           {"keys", std::get<std::string>(keys)},
                           {"repeat", std::get<int64_t>(repeat)}};
  step.fields = Json{{"keys", std::get<std::string>(keys)}, {"repeat", std::get<int64_t>(repeat)}};
  return step;
}

StepResult plan_hold_key(const Json& raw) {
  StepArguments args(raw, {"text", "duration"});
  if (auto bad = args.unknown()) return *bad;
  auto keys = text_argument(args, "text", kMaxKeysCharacters, "the keys, e.g. \"shift\"");
  if (auto bad = error_of(keys)) return *bad;
  auto held = duration_ms(args, kMaxBatchHoldSeconds);
  if (auto bad = error_of(held)) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "press_keys"},
                           {"keys", std::get<std::string>(keys)},
                           {"hold_ms", std::get<int64_t>(held)}};
  step.fields = Json{{"keys", std::get<std::string>(keys)}, {"held_ms", std::get<int64_t>(held)}};
  return step;
}

StepResult plan_type(const Json& raw) {
  StepArguments args(raw, {"text"});
  if (auto bad = args.unknown()) return *bad;
  if (!args.has("text") || !args.at("text").is_string() || args.at("text").get<std::string>().empty()) {
    return StepError{"'text' (the text to type) is required and must not be empty."};
  }
  const std::string text = args.at("text").get<std::string>();
  const int64_t length = code_points(text);
  if (length > kMaxTypedCharacters) {
    return StepError{"'text' is too long (" + std::to_string(length) + " characters, at most " +
                     std::to_string(kMaxTypedCharacters) + ")."};
  }
  BatchStep step;
  step.agent_action = Json{{"action", "type"}, {"text", text}, {"delay_ms", 2}};
  step.fields = Json{{"characters", length}};
  return step;
}

StepResult plan_wait(const Json& raw) {
  StepArguments args(raw, {"duration"});
  if (auto bad = args.unknown()) return *bad;
  auto waited = duration_ms(args, kMaxBatchWaitSeconds);
  if (auto bad = error_of(waited)) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "pause"}, {"ms", std::get<int64_t>(waited)}};
  step.fields = Json{{"waited_ms", std::get<int64_t>(waited)}};
  return step;
}

StepResult plan_screenshot(const Json& raw, const ScreenSpace& space) {
  StepArguments args(raw, {});
  if (auto bad = args.unknown()) return *bad;
  BatchStep step;
  step.agent_action = space.image_budget();
  step.agent_action["action"] = "screenshot";
  if (auto max_edge = space.max_edge()) step.agent_action["max_edge"] = *max_edge;
  step.returns_image = true;
  return step;
}

StepResult plan_zoom(const Json& raw, const ScreenSpace& space) {
  StepArguments args(raw, {"region"});
  if (auto bad = args.unknown()) return *bad;
  const Json& region = args.has("region") ? args.at("region") : Json();
  const bool four_integers = region.is_array() && region.size() == 4 &&
                             std::all_of(region.begin(), region.end(),
                                         [](const Json& v) { return v.is_number_integer(); });
  if (!four_integers) return StepError{"'region' must be [x0, y0, x1, y1], four integers."};
  const int64_t x0 = region[0].get<int64_t>(), y0 = region[1].get<int64_t>();
  const int64_t x1 = region[2].get<int64_t>(), y1 = region[3].get<int64_t>();
  if (x1 <= x0 || y1 <= y0) return StepError{"'region' needs x1 > x0 and y1 > y0."};
  auto corner = space.to_screen(x0, y0);
  if (!corner) return StepError{corner.error().message};
  BatchStep step;
  // Magnified to the budget's longer edge, as Anthropic's zoom is.
  step.agent_action = space.image_budget();
  step.agent_action.update(Json{{"action", "screenshot"},
                                {"region", {{"x", corner.value().x},
                                            {"y", corner.value().y},
                                            {"width", space.length_to_screen(x1 - x0)},
                                            {"height", space.length_to_screen(y1 - y0)}}},
                                {"magnify", true},
                                {"max_edge", kBatchZoomEdge}});
  step.returns_image = true;
  return step;
}

StepResult plan_without_arguments(const Json& raw, const char* agent_action) {
  StepArguments args(raw, {});
  if (auto bad = args.unknown()) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", agent_action}};
  return step;
}

StepResult plan_launch(const Json& raw) {
  StepArguments args(raw, {"target"});
  if (auto bad = args.unknown()) return *bad;
  auto target = text_argument(args, "target", kMaxLaunchTargetCharacters,
                              "an application, a path or a URL");
  if (auto bad = error_of(target)) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "launch"}, {"target", std::get<std::string>(target)}};
  return step;
}

StepResult plan_clipboard_write(const Json& raw) {
  StepArguments args(raw, {"text"});
  if (auto bad = args.unknown()) return *bad;
  if (!args.has("text") || !args.at("text").is_string()) {
    return StepError{"'text' (what to copy) is required, as a string."};
  }
  const std::string text = args.at("text").get<std::string>();
  if (code_points(text) > kMaxClipboardCharacters) {
    return StepError{"'text' is too long (" + std::to_string(code_points(text)) +
                     " characters, at most " + std::to_string(kMaxClipboardCharacters) + ")."};
  }
  BatchStep step;
  step.agent_action = Json{{"action", "clipboard_write"}, {"selection", "clipboard"}, {"text", text}};
  step.fields = Json{{"characters", code_points(text)}};
  return step;
}

StepResult plan_window(const Json& raw) {
  StepArguments args(raw, {"window_id", "operation"});
  if (auto bad = args.unknown()) return *bad;
  static const std::set<std::string> kOperations = {"activate", "maximize", "restore", "minimize",
                                                    "close"};
  if (!args.has("operation") || !args.at("operation").is_string() ||
      kOperations.count(args.at("operation").get<std::string>()) == 0) {
    return StepError{"'operation' must be activate, maximize, restore, minimize or close."};
  }
  auto id = text_argument(args, "window_id", kMaxSelectorCharacters, "from list_windows");
  if (auto bad = error_of(id)) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "window_action"},
                           {"window_id", std::get<std::string>(id)},
                           {"operation", args.at("operation")}};
  step.fields = Json{{"operation", args.at("operation")}};
  return step;
}

StepResult plan_wait_for_screen(const Json& raw) {
  StepArguments args(raw, {"until", "stable_ms", "timeout_ms"});
  if (auto bad = args.unknown()) return *bad;
  std::string until = "change";
  if (args.has("until")) {
    if (!args.at("until").is_string() ||
        (args.at("until") != "change" && args.at("until") != "stable")) {
      return StepError{"'until' must be change or stable."};
    }
    until = args.at("until").get<std::string>();
  }
  auto stable = integer_argument_in(args, "stable_ms", 50, 60000, 500);
  if (auto bad = error_of(stable)) return *bad;
  auto timeout = integer_argument_in(args, "timeout_ms", 100, 30000, 10000);
  if (auto bad = error_of(timeout)) return *bad;
  BatchStep step;
  step.agent_action = Json{{"action", "wait_for_screen"},
                           {"until", until},
                           {"stable_ms", std::get<int64_t>(stable)},
                           {"timeout_ms", std::get<int64_t>(timeout)}};
  return step;
}

const std::map<std::string, StepPlanner>& planners() {
  using std::placeholders::_1;
  using std::placeholders::_2;
  static const std::map<std::string, StepPlanner> kPlanners = {
      {"screenshot", plan_screenshot},
      {"zoom", plan_zoom},
      {"cursor_position",
       [](const Json& raw, const ScreenSpace&) { return plan_without_arguments(raw, "cursor_position"); }},
      {"mouse_move", plan_mouse_move},
      {"left_click", std::bind(plan_click, _1, _2, "left", 1)},
      {"right_click", std::bind(plan_click, _1, _2, "right", 1)},
      {"middle_click", std::bind(plan_click, _1, _2, "middle", 1)},
      {"double_click", std::bind(plan_click, _1, _2, "left", 2)},
      {"triple_click", std::bind(plan_click, _1, _2, "left", 3)},
      {"left_click_drag", plan_drag},
      {"left_mouse_down", std::bind(plan_mouse_button, _1, _2, "down")},
      {"left_mouse_up", std::bind(plan_mouse_button, _1, _2, "up")},
      {"scroll", plan_scroll},
      {"key", [](const Json& raw, const ScreenSpace&) { return plan_key(raw); }},
      {"hold_key", [](const Json& raw, const ScreenSpace&) { return plan_hold_key(raw); }},
      {"type", [](const Json& raw, const ScreenSpace&) { return plan_type(raw); }},
      {"wait", [](const Json& raw, const ScreenSpace&) { return plan_wait(raw); }},
      {"launch", [](const Json& raw, const ScreenSpace&) { return plan_launch(raw); }},
      {"clipboard_read",
       [](const Json& raw, const ScreenSpace&) {
         StepResult step = plan_without_arguments(raw, "clipboard_read");
         if (auto* planned = std::get_if<BatchStep>(&step)) {
           planned->agent_action["selection"] = "clipboard";
         }
         return step;
       }},
      {"clipboard_write", [](const Json& raw, const ScreenSpace&) { return plan_clipboard_write(raw); }},
      {"list_windows",
       [](const Json& raw, const ScreenSpace&) { return plan_without_arguments(raw, "list_windows"); }},
      {"window", [](const Json& raw, const ScreenSpace&) { return plan_window(raw); }},
      {"wait_for_screen", [](const Json& raw, const ScreenSpace&) { return plan_wait_for_screen(raw); }},
      {"accessibility",
       [](const Json& raw, const ScreenSpace&) {
         return plan_without_arguments(raw, "accessibility_snapshot");
       }},
  };
  return kPlanners;
}

Json position(const ScreenSpace& space, ScreenPoint screen) {
  const ScreenPoint seen = space.from_screen(screen.x, screen.y);
  return Json{{"x", seen.x}, {"y", seen.y}, {"screen_x", screen.x}, {"screen_y", screen.y}};
}

}  // namespace

const std::vector<std::string>& batch_step_names() {
  static const std::vector<std::string> kNames = {
      "screenshot",    "zoom",          "cursor_position", "mouse_move",     "left_click",
      "right_click",   "middle_click",  "double_click",    "triple_click",   "left_click_drag",
      "left_mouse_down", "left_mouse_up", "scroll",        "key",            "hold_key",
      "type",          "wait",          "launch",          "clipboard_read", "clipboard_write",
      "list_windows",  "window",        "wait_for_screen", "accessibility"};
  return kNames;
}

Expected<std::vector<BatchStep>> plan_batch(const Json& actions, const ScreenSpace& space) {
  if (!actions.is_array() || actions.empty() || actions.size() > kMaxBatchSteps) {
    return Failure{VC_E_INVALID_ARGUMENT, "actions must be a list of 1 to " +
                                              std::to_string(kMaxBatchSteps) + " steps."};
  }
  std::vector<BatchStep> steps;
  for (size_t index = 0; index < actions.size(); ++index) {
    const Json& raw = actions[index];
    const std::string number = "Step " + std::to_string(index + 1);
    if (!raw.is_object() || !raw.contains("action") || !raw["action"].is_string()) {
      return Failure{VC_E_INVALID_ARGUMENT,
                     number + ": each step is an object with an \"action\" name."};
    }
    const std::string name = raw["action"].get<std::string>();
    auto planner = planners().find(name);
    if (planner == planners().end()) {
      return Failure{VC_E_INVALID_ARGUMENT,
                     number + ": unknown action '" + name.substr(0, 40) + "'."};
    }
    StepResult planned = planner->second(raw, space);
    if (auto* bad = std::get_if<StepError>(&planned)) {
      return Failure{VC_E_INVALID_ARGUMENT, number + " (" + name + "): " + bad->message};
    }
    BatchStep step = std::get<BatchStep>(std::move(planned));
    step.name = name;
    steps.push_back(std::move(step));
  }
  return steps;
}

Json batch_step_result(size_t index, const BatchStep& step, const Json& agent_result,
                       const ScreenSpace& space) {
  Json out{{"step", index + 1}, {"action", step.name}, {"ok", true}};
  out.update(step.fields);
  const std::string agent_action = step.agent_action.value("action", "");
  if (step.point) {
    out.update(position(space, *step.point));
  } else if ((agent_action == "click" || agent_action == "mouse_button" ||
              agent_action == "cursor_position") &&
             agent_result.contains("x") && agent_result["x"].is_number_integer() &&
             agent_result.contains("y") && agent_result["y"].is_number_integer()) {
    out.update(position(space, ScreenPoint{agent_result["x"].get<int64_t>(),
                                           agent_result["y"].get<int64_t>()}));
  }
  if (agent_result.contains("effect")) out["effect"] = agent_result["effect"];
  if (agent_action == "launch") {
    for (const char* key : {"pid", "command", "window", "writable"}) {
      if (agent_result.contains(key)) out[key] = agent_result[key];
    }
  } else if (agent_action == "clipboard_read") {
    out["text"] = agent_result.value("text", "");
  } else if (agent_action == "list_windows") {
    out["windows"] = agent_result.value("windows", Json::array());
  } else if (agent_action == "window_action") {
    out["window"] = agent_result.value("window", Json());
  } else if (agent_action == "wait_for_screen") {
    out["result"] = agent_result.value("result", "");
    out["waited_ms"] = agent_result.value("waited_ms", int64_t{0});
  } else if (agent_action == "accessibility_snapshot") {
    out["snapshot"] = scale_snapshot(agent_result, space.scale()).value("snapshot", "");
  } else if (agent_action == "type") {
    out["characters"] = agent_result.value("characters", out.value("characters", int64_t{0}));
  }
  return out;
}

}  // namespace vc::tools
