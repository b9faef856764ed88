// Unit tests of the desktop tools' pure parts: which window a selector means, the coordinate
// space of a scaled screenshot, the snapshot rescaled into it, and the tool set's visibility.
#include <algorithm>

#include <gtest/gtest.h>

#include <vc-backend-1/vc_status.h>

#include "tools/desktop_screen_snapshot.h"
#include "tools/desktop_tools.h"
#include "tools/desktop_tool_set.h"
#include "tools/screen_space.h"
#include "tools/window_selector.h"

namespace vc::tools {
namespace {

Json sample_windows() {
  return Json::array({
      Json{{"window_id", "0x01a00003"}, {"title", "xfce4-panel"}, {"wm_class", "xfce4-panel.Xfce4-panel"}},
      Json{{"window_id", "0x02400003"}, {"title", "Terminal - computer@box: ~"},
           {"wm_class", "xfce4-terminal.Xfce4-terminal"}},
      Json{{"window_id", "0x02600003"}, {"title", "*notes.txt - Mousepad"},
           {"wm_class", "mousepad.Mousepad"}},
      Json{{"window_id", "0x02600010"}, {"title", "Untitled 1 - Mousepad"},
           {"wm_class", "mousepad.Mousepad"}},
  });
}

TEST(WindowSelector, HexAndDecimalIdsMatchByNumber) {
  auto hex = select_window(sample_windows(), "0x2400003");
  ASSERT_TRUE(hex.ok());
  EXPECT_EQ(hex.value()["window_id"], "0x02400003");
  auto decimal = select_window(sample_windows(), std::to_string(0x02600003));
  ASSERT_TRUE(decimal.ok());
  EXPECT_EQ(decimal.value()["title"], "*notes.txt - Mousepad");
}

TEST(WindowSelector, AnIdOfNoWindowIsNotFoundEvenIfATitleContainsIt) {
  auto missing = select_window(sample_windows(), "12345");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "Window '12345' was not found.");
}

TEST(WindowSelector, ExactTitleOrClassWinsOverSubstrings) {
  auto exact = select_window(sample_windows(), "XFCE4-PANEL");
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact.value()["window_id"], "0x01a00003");
  auto by_class = select_window(sample_windows(), "xfce4-terminal.xfce4-terminal");
  ASSERT_TRUE(by_class.ok());
  EXPECT_EQ(by_class.value()["window_id"], "0x02400003");
}

TEST(WindowSelector, AnUnambiguousSubstringSelects) {
  auto notes = select_window(sample_windows(), "notes");
  ASSERT_TRUE(notes.ok());
  EXPECT_EQ(notes.value()["window_id"], "0x02600003");
}

TEST(WindowSelector, AmbiguityListsTheCandidatesInTheOriginalsWords) {
  auto both = select_window(sample_windows(), "mousepad");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(both.error().message,
            "Window selector is ambiguous; use one of: 0x02600003, 0x02600010.");
  auto none = select_window(sample_windows(), "firefox");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().message, "Window 'firefox' was not found.");
}

TEST(WindowSelector, TheCandidateListStopsAtEight) {
  Json many = Json::array();
  for (int i = 0; i < 12; ++i) {
    many.push_back(Json{{"window_id", "0x0000000" + std::to_string(i % 10)}, {"title", "same"},
                        {"wm_class", "a.A"}});
  }
  auto result = select_window(many, "sam");
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message;
  EXPECT_EQ(std::count(message.begin(), message.end(), ','), 7) << message;
}

TEST(ScreenSpace, FullSizeScreenshotsMapOneToOneAndCheckTheScreen) {
  ScreenSpace space;
  space.remember(1280, 800, 1.0);
  auto point = space.to_screen(1279, 799);
  ASSERT_TRUE(point.ok());
  EXPECT_EQ(point.value().x, 1279);
  EXPECT_EQ(point.value().y, 799);
  auto outside = space.to_screen(1280, 10);
  ASSERT_FALSE(outside.ok());
  EXPECT_EQ(outside.error().message, "Coordinate (1280, 10) is outside the 1280x800 screen.");
  EXPECT_FALSE(space.to_screen(-1, 0).ok());
}

TEST(ScreenSpace, ScaledScreenshotCoordinatesLandWhereTheModelPointed) {
  ScreenSpace space;
  space.remember(1280, 800, 0.8);  // a 1024x640 image
  auto centre = space.to_screen(512, 320);
  ASSERT_TRUE(centre.ok());
  EXPECT_EQ(centre.value().x, 640);
  EXPECT_EQ(centre.value().y, 400);
  auto corner = space.to_screen(1023, 639);
  ASSERT_TRUE(corner.ok());
  EXPECT_LE(corner.value().x, 1279);
  EXPECT_LE(corner.value().y, 799);
  auto outside = space.to_screen(1024, 0);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.error().message.find("1024x640 screenshot"), std::string::npos);
  ScreenPoint back = space.from_screen(640, 400);
  EXPECT_EQ(back.x, 512);
  EXPECT_EQ(back.y, 320);
  EXPECT_EQ(space.length_to_screen(80), 100);
}

TEST(ScreenSpace, NonsenseScalesAreIgnored) {
  ScreenSpace space;
  space.remember(1280, 800, 0.0);
  space.remember(1280, 800, 3.0);
  space.remember(0, 800, 0.5);
  EXPECT_FALSE(space.known());
  EXPECT_EQ(space.scale(), 1.0);
}

TEST(ScaleSnapshot, BoundsInElementsAndTextFollowTheScale) {
  Json snapshot{{"format", "at-spi-snapshot-v1"},
                {"width", 1280},
                {"height", 800},
                {"snapshot", "- application \"xfce4-panel\" [ref=atspi:0]\n"
                             "  - push button \"Apps\" [ref=atspi:0/1 bounds=100,10,50,20 focused]\n"},
                {"elements", Json::array({Json{{"ref", "atspi:0"}},
                                          Json{{"ref", "atspi:0/1"},
                                               {"bounds", {{"x", 100}, {"y", 10}, {"width", 50},
                                                           {"height", 20}}}}})}};
  Json scaled = scale_snapshot(snapshot, 0.5);
  EXPECT_EQ(scaled["width"], 640);
  EXPECT_EQ(scaled["height"], 400);
  EXPECT_EQ(scaled["elements"][1]["bounds"]["x"], 50);
  EXPECT_EQ(scaled["elements"][1]["bounds"]["width"], 25);
  EXPECT_NE(scaled["snapshot"].get<std::string>().find("bounds=50,5,25,10 focused"),
            std::string::npos)
      << scaled["snapshot"];
  EXPECT_EQ(scale_snapshot(snapshot, 1.0), snapshot);
}

TEST(DesktopToolSet, DesktopToolsFollowTheLiveDesktopAndTellSubscribers) {
  DesktopToolSet set(false);
  set.add_desktop_tool("click");
  int told = 0;
  auto subscription = set.subscribe([&] { ++told; });
  EXPECT_FALSE(set.tool_visible("click"));
  EXPECT_TRUE(set.tool_visible("terminal_execute"));

  computers::ComputerInfo computer;
  computer.computer_id = "c";
  computer.desktop_environment = true;
  set.observe(computer);  // Xfce on but no view: not live
  EXPECT_EQ(told, 0);
  computer.desktop_url = "http://127.0.0.1:1/vnc.html";
  set.observe(computer);
  EXPECT_TRUE(set.tool_visible("click"));
  EXPECT_EQ(told, 1);
  set.observe(computer);  // no change, no notification
  EXPECT_EQ(told, 1);

  subscription.reset();
  computer.desktop_environment = false;
  set.observe(computer);
  EXPECT_FALSE(set.tool_visible("click"));
  EXPECT_EQ(told, 1);  // unsubscribed
}

// Every text argument of every desktop tool declares its bound, and a fixed set is an enum:
// what the schema validator refuses before anything reaches the desktop.
TEST(DesktopToolSchemas, EveryTextArgumentIsBoundedOrAnEnum) {
  DesktopToolSet set(false);
  const auto tools = make_desktop_tools(DesktopToolsContext{nullptr, &set});
  ASSERT_GE(tools.size(), 21u);
  int strings = 0;
  for (const auto& tool : tools) {
    const auto& definition = tool->definition();
    const Json& properties = definition.input_schema.value("properties", Json::object());
    for (const auto& [name, property] : properties.items()) {
      if (property.value("type", "") != "string") continue;
      ++strings;
      EXPECT_TRUE(property.contains("maxLength") || property.contains("enum"))
          << definition.name << "." << name << " takes text of any length";
    }
  }
  EXPECT_GT(strings, 10) << "the test found the string arguments";
  const auto click = std::find_if(tools.begin(), tools.end(),
                                  [](const auto& tool) { return tool->definition().name == "click"; });
  ASSERT_NE(click, tools.end());
  EXPECT_EQ((*click)->definition().input_schema["properties"]["button"]["enum"],
            (Json::array({"left", "middle", "right"})));
  const auto type = std::find_if(tools.begin(), tools.end(),
                                 [](const auto& tool) { return tool->definition().name == "type"; });
  ASSERT_NE(type, tools.end());
  EXPECT_EQ((*type)->definition().input_schema["properties"]["text"]["maxLength"], 10000);
}

}  // namespace
}  // namespace vc::tools
