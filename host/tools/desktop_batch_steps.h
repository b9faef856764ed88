// desktop_batch_steps.h — the steps of a desktop_actions batch: the computer-use vocabulary the
// models are trained on, checked as a whole and turned into desktop agent actions.
//
// The vocabulary is Anthropic's computer-use actions with their argument names (`coordinate`
// [x, y], `start_coordinate`, `text` for typed text, keys and held keys, `scroll_direction`,
// `scroll_amount`, `duration` in seconds, `region` [x0, y0, x1, y1]) plus the desktop's own
// (launch, windows, clipboard, accessibility, wait_for_screen). Coordinates are read in the
// session's coordinate space (screen_space.h), as every pointer tool reads them.
//
// Pure functions: no I/O, [any-thread].
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/failure.h"
#include "common/json.h"
#include "tools/screen_space.h"

namespace vc::tools {

// The most steps one batch takes.
inline constexpr size_t kMaxBatchSteps = 30;
// The longest `wait` and `hold_key` of a step, in seconds.
inline constexpr double kMaxBatchWaitSeconds = 30.0;
inline constexpr double kMaxBatchHoldSeconds = 10.0;
// The longer edge a zoom step's region is magnified (or shrunk) to.
inline constexpr int64_t kBatchZoomEdge = 1024;

// The step names a batch accepts, in the order the schema lists them.
const std::vector<std::string>& batch_step_names();

// One checked step.
struct BatchStep {
  std::string name;   // as the model wrote it ("left_click")
  Json agent_action;  // the desktop agent request it becomes
  // What the step's result reports besides the agent's answer: the point acted on (screen
  // pixels), the step's own fields.
  std::optional<ScreenPoint> point;
  Json fields = Json::object();
  bool returns_image = false;  // screenshot, zoom
};

// Checks every step of `actions` against the vocabulary and `space` and translates it. The
// first wrong step is a Failure "Step N (name): what is wrong"; then nothing may run.
Expected<std::vector<BatchStep>> plan_batch(const Json& actions, const ScreenSpace& space);

// The step's result object: {step, action, ok: true, ...} with the fields the single tool
// would give (positions in the session's space and in screen pixels, effect when settled).
Json batch_step_result(size_t index, const BatchStep& step, const Json& agent_result,
                       const ScreenSpace& space);

}  // namespace vc::tools
