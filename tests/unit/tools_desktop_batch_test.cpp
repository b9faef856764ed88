// Unit tests of desktop_actions' steps: the computer-use vocabulary turned into desktop agent
// actions, every step checked before any runs, and the per-session coordinate spaces.
#include <gtest/gtest.h>

#include "tools/desktop_batch_steps.h"
#include "tools/desktop_tool_set.h"
#include "tools/screen_space.h"

namespace vc::tools {
namespace {

ScreenSpace half_scale_space() {
  ScreenSpace space;
  space.remember(1280, 800, 0.5);
  space.remember_max_edge(640);
  return space;
}

TEST(DesktopBatchSteps, AnthropicActionsBecomeAgentActionsInScreenPixels) {
  const Json actions = Json::parse(R"([
    {"action": "left_click", "coordinate": [100, 50], "text": "ctrl+Shift"},
    {"action": "double_click"},
    {"action": "left_click_drag", "start_coordinate": [10, 10], "coordinate": [20, 30]},
    {"action": "scroll", "scroll_direction": "down", "scroll_amount": 5, "coordinate": [300, 200]},
    {"action": "key", "text": "ctrl+s"},
    {"action": "hold_key", "text": "shift", "duration": 1.5},
    {"action": "type", "text": "héllo\n"},
    {"action": "wait", "duration": 2},
    {"action": "zoom", "region": [0, 0, 320, 200]},
    {"action": "screenshot"}
  ])");
  auto plan = plan_batch(actions, half_scale_space());
  ASSERT_TRUE(plan.ok()) << plan.error().message;
  const auto& steps = plan.value();
  ASSERT_EQ(steps.size(), 10u);
  EXPECT_EQ(steps[0].agent_action,
            (Json{{"action", "click"}, {"button", "left"}, {"clicks", 1}, {"x", 200}, {"y", 100},
                  {"modifiers", {"ctrl", "shift"}}}));
  // Without a coordinate: where the pointer is (the agent reads it).
  EXPECT_FALSE(steps[1].agent_action.contains("x"));
  EXPECT_EQ(steps[1].agent_action["clicks"], 2);
  EXPECT_EQ(steps[2].agent_action["path"], (Json::parse("[[20, 20], [40, 60]]")));
  EXPECT_EQ(steps[3].agent_action["amount"], 5);
  EXPECT_EQ(steps[3].agent_action["x"], 600);
  EXPECT_EQ(steps[4].agent_action, (Json{{"action", "press_keys"}, {"keys", "ctrl+s"}, {"repeat", 1}}));
  EXPECT_EQ(steps[5].agent_action["hold_ms"], 1500);
  EXPECT_EQ(steps[6].agent_action["text"], "héllo\n");
  EXPECT_EQ(steps[7].agent_action, (Json{{"action", "pause"}, {"ms", 2000}}));
  EXPECT_EQ(steps[8].agent_action["region"],
            (Json{{"x", 0}, {"y", 0}, {"width", 640}, {"height", 400}}));
  EXPECT_TRUE(steps[8].returns_image);
  EXPECT_EQ(steps[8].agent_action["magnify"], true) << "zoom magnifies the region";
  EXPECT_EQ(steps[8].agent_action["max_edge"], 1024);
  // A screenshot keeps the session's space: the max_edge of its last look.
  EXPECT_EQ(steps[9].agent_action["max_edge"], 640);
}

TEST(DesktopBatchSteps, TheFirstWrongStepIsNamedAndNothingIsPlanned) {
  const Json actions = Json::parse(R"([
    {"action": "left_click", "coordinate": [10, 10]},
    {"action": "type", "text": "ok"},
    {"action": "left_click", "coordinate": [700, 10]},
    {"action": "bogus"}
  ])");
  auto plan = plan_batch(actions, half_scale_space());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message.rfind("Step 3 (left_click): Coordinate (700, 10) is outside the "
                                       "640x400 screenshot", 0),
            0u)
      << plan.error().message;
}

TEST(DesktopBatchSteps, MistakesAModelMakesGetAClearMessage) {
  const ScreenSpace space = half_scale_space();
  auto first_error = [&](const char* step) {
    auto plan = plan_batch(Json::array({Json::parse(step)}), space);
    return plan.ok() ? std::string("(planned)") : plan.error().message;
  };
  EXPECT_EQ(first_error(R"({"action": "left_click", "coord": [1, 2]})"),
            "Step 1 (left_click): unknown argument 'coord'; it takes coordinate, text.");
  EXPECT_EQ(first_error(R"({"action": "left_click", "coordinate": [1]})"),
            "Step 1 (left_click): 'coordinate' must be [x, y], two integers.");
  EXPECT_EQ(first_error(R"({"action": "left_click", "text": "ctrl+q"})"),
            "Step 1 (left_click): 'q' cannot be held during a click; use ctrl, shift, alt or super.");
  EXPECT_EQ(first_error(R"({"action": "type", "text": ""})"),
            "Step 1 (type): 'text' (the text to type) is required and must not be empty.");
  EXPECT_EQ(first_error(R"({"action": "scroll", "scroll_direction": "sideways"})"),
            "Step 1 (scroll): 'scroll_direction' must be up, down, left or right.");
  EXPECT_EQ(first_error(R"({"action": "wait", "duration": 31})"),
            "Step 1 (wait): 'duration' must be a number of seconds from 0 to 30.");
  EXPECT_EQ(first_error(R"({"action": "hold_key", "text": "a", "duration": 11})"),
            "Step 1 (hold_key): 'duration' must be a number of seconds from 0 to 10.");
  EXPECT_EQ(first_error(R"({"action": "zoom", "region": [10, 10, 5, 20]})"),
            "Step 1 (zoom): 'region' needs x1 > x0 and y1 > y0.");
  EXPECT_EQ(first_error(R"({"action": "nope"})"), "Step 1: unknown action 'nope'.");
  EXPECT_EQ(first_error(R"("left_click")"),
            "Step 1: each step is an object with an \"action\" name.");
  const std::string long_text(10001, 'x');
  EXPECT_EQ(first_error(Json{{"action", "type"}, {"text", long_text}}.dump().c_str()),
            "Step 1 (type): 'text' is too long (10001 characters, at most 10000).");
}

TEST(DesktopBatchSteps, BatchesAreBounded) {
  Json many = Json::array();
  for (size_t i = 0; i <= kMaxBatchSteps; ++i) many.push_back(Json{{"action", "cursor_position"}});
  auto plan = plan_batch(many, ScreenSpace());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message, "actions must be a list of 1 to 30 steps.");
  EXPECT_FALSE(plan_batch(Json::array(), ScreenSpace()).ok());
}

TEST(DesktopBatchSteps, AStepResultIsWhatTheSingleToolGives) {
  auto plan = plan_batch(Json::parse(R"([{"action": "left_click", "coordinate": [100, 50]},
                                         {"action": "cursor_position"}])"),
                         half_scale_space());
  ASSERT_TRUE(plan.ok());
  const Json click = batch_step_result(0, plan.value()[0],
                                       Json{{"x", 200}, {"y", 100}, {"effect", true}},
                                       half_scale_space());
  EXPECT_EQ(click, (Json{{"step", 1}, {"action", "left_click"}, {"ok", true}, {"button", "left"},
                         {"clicks", 1}, {"x", 100}, {"y", 50}, {"screen_x", 200},
                         {"screen_y", 100}, {"effect", true}}));
  const Json where = batch_step_result(1, plan.value()[1], Json{{"x", 640}, {"y", 400}},
                                       half_scale_space());
  EXPECT_EQ(where["x"], 320);
  EXPECT_EQ(where["screen_y"], 400);
}

TEST(DesktopToolSet, EachSessionHasItsOwnCoordinateSpace) {
  DesktopToolSet set(true);
  set.screen_space(1).remember(1280, 800, 0.5);
  EXPECT_EQ(set.screen_space(1).scale(), 0.5);
  EXPECT_FALSE(set.screen_space(2).known()) << "a second session starts from the screen";
  EXPECT_EQ(set.screen_space(2).scale(), 1.0);
  EXPECT_EQ(set.screen_space(1).describe(), (Json{{"width", 640}, {"height", 400}, {"scale", 0.5}}));
  // Only the spaces of the sessions that used the desktop last are kept.
  for (uint64_t session = 10; session < 10 + DesktopToolSet::kMaxSessionSpaces; ++session) {
    set.screen_space(session);
  }
  EXPECT_FALSE(set.screen_space(1).known()) << "the oldest session's space was forgotten";
}

}  // namespace
}  // namespace vc::tools
