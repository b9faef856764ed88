// desktop_batch_tool.cpp — see desktop_batch_tool.h.
#include "tools/desktop_batch_tool.h"

#include <functional>
#include <utility>

#include "tools/desktop_batch_steps.h"
#include "tools/desktop_observation.h"
#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

struct Batch {
  std::vector<BatchStep> steps;
  Json results = Json::array();
  Json images = Json::array();  // what screenshot and zoom steps returned, in order
};

void conclude_batch(const std::shared_ptr<DesktopCall>& call, const std::shared_ptr<Batch>& batch,
                    size_t ran, const std::string& error) {
  Json out{{"ok", error.empty()}, {"steps", std::move(batch->results)}, {"completed", ran}};
  if (!error.empty()) {
    const BatchStep& failed = batch->steps[ran];
    out["failed_step"] = ran + 1;
    out["error"] = "Step " + std::to_string(ran + 1) + " (" + failed.name + ") failed: " + error;
    Json not_run = Json::array();
    for (size_t i = ran + 1; i < batch->steps.size(); ++i) not_run.push_back(i + 1);
    out["not_run"] = std::move(not_run);
  }
  call->conclude(std::move(out), !error.empty(), std::move(batch->images));
}

void run_step(const std::shared_ptr<DesktopCall>& call, const std::shared_ptr<Batch>& batch,
              size_t index) {
  if (index == batch->steps.size()) return conclude_batch(call, batch, index, "");
  const BatchStep& step = batch->steps[index];
  call->attempt(step.agent_action, [call, batch, index](Expected<Json> answer) {
    if (!answer) return conclude_batch(call, batch, index, answer.error().message);
    const BatchStep& done = batch->steps[index];
    const Json& result = answer.value();
    Json step_result = batch_step_result(index, done, result, call->screen_space());
    if (done.returns_image) {
      if (!done.agent_action.contains("region")) {
        call->screen_space().remember(result.value("screen_width", int64_t{0}),
                                      result.value("screen_height", int64_t{0}),
                                      result.value("scale", 1.0));
      }
      step_result["image"] = screenshot_facts(result);
      batch->images.push_back(screenshot_content(result));
    }
    batch->results.push_back(std::move(step_result));
    run_step(call, batch, index + 1);
  });
}

void desktop_actions(const std::shared_ptr<DesktopCall>& call) {
  call->set_default_observe("screenshot");
  auto plan = plan_batch(call->arguments().value("actions", Json()), call->screen_space());
  if (!plan) return call->fail(plan.error().message + " Nothing was run.");
  auto batch = std::make_shared<Batch>();
  batch->steps = std::move(plan).value();
  run_step(call, batch, 0);
}

Json step_schema() {
  const Json point{{"type", "array"}, {"minItems", 2}, {"maxItems", 2}, {"items", {{"type", "integer"}}}};
  return Json{
      {"type", "object"},
      {"properties",
       {{"action", {{"type", "string"}, {"enum", batch_step_names()}}},
        {"coordinate", merged(point, Json{{"description", "[x, y] in your last screenshot's pixels."}})},
        {"start_coordinate", merged(point, Json{{"description", "left_click_drag's start [x, y]."}})},
        {"text", {{"type", "string"},
                  {"maxLength", kMaxClipboardCharacters},
                  {"description", "type: the text (at most 10,000 characters); key, hold_key: "
                                  "the keys (\"ctrl+s\"); clicks, scroll, drag: keys held "
                                  "(\"ctrl+shift\"); clipboard_write: the text."}}},
        {"repeat", {{"type", "integer"}, {"minimum", 1}, {"maximum", 100}}},
        {"scroll_direction", {{"type", "string"}, {"enum", {"up", "down", "left", "right"}}}},
        {"scroll_amount", {{"type", "integer"}, {"minimum", 1}, {"maximum", 50}}},
        {"duration", {{"type", "number"}, {"minimum", 0}, {"maximum", kMaxBatchWaitSeconds},
                      {"description", "wait, hold_key: seconds (hold_key at most 10)."}}},
        {"region", {{"type", "array"}, {"minItems", 4}, {"maxItems", 4},
                    {"items", {{"type", "integer"}}},
                    {"description", "zoom: [x0, y0, x1, y1]."}}},
        {"target", {{"type", "string"}, {"maxLength", kMaxLaunchTargetCharacters},
                    {"description", "launch: an application, a path or a URL."}}},
        {"window_id", {{"type", "string"}, {"maxLength", kMaxSelectorCharacters}}},
        {"operation", {{"type", "string"},
                       {"enum", {"activate", "maximize", "restore", "minimize", "close"}}}},
        {"until", {{"type", "string"}, {"enum", {"change", "stable"}}}},
        {"stable_ms", {{"type", "integer"}, {"minimum", 50}, {"maximum", 60000}}},
        {"timeout_ms", {{"type", "integer"}, {"minimum", 100}, {"maximum", 30000}}}}},
      {"required", {"action"}}};
}

}  // namespace

void add_batch_tool(const DesktopToolsContext& context,
                    std::vector<std::unique_ptr<mcp::Tool>>& tools) {
  Json properties{
      {"actions", {{"type", "array"},
                   {"minItems", 1},
                   {"maxItems", kMaxBatchSteps},
                   {"description",
                    "The steps, in order (at most 30), in the computer-use vocabulary: "
                    "screenshot, zoom {region}, cursor_position, mouse_move {coordinate}, "
                    "left_click / right_click / middle_click / double_click / triple_click "
                    "{coordinate?, text: held keys?}, left_click_drag {start_coordinate, "
                    "coordinate}, left_mouse_down / left_mouse_up {coordinate?}, scroll "
                    "{scroll_direction, scroll_amount, coordinate?}, key {text, repeat?}, "
                    "hold_key {text, duration}, type {text}, wait {duration}, and launch "
                    "{target}, clipboard_read, clipboard_write {text}, list_windows, window "
                    "{window_id, operation}, wait_for_screen {until}, accessibility."},
                   {"items", step_schema()}}}};
  Json input = input_properties(std::move(properties));
  input["observe"]["default"] = "screenshot";
  add_desktop_tool(
      context, tools,
      tool_definition(
          "desktop_actions",
          "Run several desktop steps in one call, in order, as one turn of computer use: all are "
          "checked before any runs, each waits for the screen to settle, the batch stops at the "
          "first failing step, and one screenshot of the result comes at the end. Coordinates "
          "are in your last screenshot's pixels.",
          object_schema("desktop_actions", std::move(input), {"actions"}),
          desktop_output_schema(
              Json{{"ok", typed("boolean", "True when every step ran.")},
                   {"steps", typed("array", "One result per step that ran, as its single "
                                            "tool gives it.")},
                   {"completed", typed("integer", "How many steps ran.")},
                   {"failed_step", typed("integer", "The step that failed (1-based).")},
                   {"not_run", typed("array", "The steps after it, never started.")}}),
          acting_annotations()),
      desktop_actions);
}

}  // namespace vc::tools
