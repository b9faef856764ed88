// Unit tests of the accessibility tools' pure parts: matching elements of a snapshot by role,
// name and state, and the session's memory of what its last look showed at each ref.
#include <gtest/gtest.h>

#include "tools/desktop_element_tools.h"
#include "tools/screen_space.h"

namespace vc::tools {
namespace {

Json sample_snapshot() {
  return Json{{"format", "at-spi-snapshot-v1"},
              {"elements", Json::array({
                   Json{{"ref", "atspi:1"}, {"role", "frame"}, {"name", "notes.txt - Mousepad"},
                        {"focused", false}, {"focusable", false}, {"enabled", true}},
                   Json{{"ref", "atspi:1/0"}, {"role", "push button"}, {"name", "Save"},
                        {"focused", false}, {"focusable", true}, {"enabled", true}},
                   Json{{"ref", "atspi:1/1"}, {"role", "push button"}, {"name", "Save As…"},
                        {"focused", false}, {"focusable", true}, {"enabled", false}},
                   Json{{"ref", "atspi:1/2"}, {"role", "text"}, {"name", ""},
                        {"focused", true}, {"focusable", true}, {"enabled", true}},
               })}};
}

std::vector<std::string> refs(const ElementMatches& matches) {
  std::vector<std::string> out;
  for (const Json& element : matches.elements) out.push_back(element["ref"]);
  return out;
}

TEST(ElementQuery, RoleIsExactNameIsAPartBothInAnyCase) {
  ElementQuery buttons;
  buttons.role = "Push Button";
  EXPECT_EQ(refs(match_elements(sample_snapshot(), buttons)),
            (std::vector<std::string>{"atspi:1/0", "atspi:1/1"}));
  ElementQuery save;
  save.name = "save";
  save.role = "push button";
  EXPECT_EQ(refs(match_elements(sample_snapshot(), save)),
            (std::vector<std::string>{"atspi:1/0", "atspi:1/1"}));
  ElementQuery none;
  none.role = "push";  // not a part match
  EXPECT_TRUE(match_elements(sample_snapshot(), none).elements.empty());
}

TEST(ElementQuery, StateAndLimit) {
  ElementQuery focused;
  focused.state = "focused";
  EXPECT_EQ(refs(match_elements(sample_snapshot(), focused)), (std::vector<std::string>{"atspi:1/2"}));
  ElementQuery enabled_buttons;
  enabled_buttons.role = "push button";
  enabled_buttons.state = "enabled";
  EXPECT_EQ(refs(match_elements(sample_snapshot(), enabled_buttons)),
            (std::vector<std::string>{"atspi:1/0"}));
  ElementQuery first;
  first.state = "enabled";
  first.limit = 2;
  const ElementMatches limited = match_elements(sample_snapshot(), first);
  EXPECT_EQ(limited.elements.size(), 2u);
  EXPECT_TRUE(limited.truncated);
}

TEST(ScreenSpaceElements, TheLastLookIsRememberedPerRef) {
  ScreenSpace space;
  EXPECT_FALSE(space.element("atspi:1/0").has_value());
  space.remember_elements(sample_snapshot());
  auto save = space.element("atspi:1/0");
  ASSERT_TRUE(save.has_value());
  EXPECT_EQ(save->role, "push button");
  EXPECT_EQ(save->name, "Save");
  // A new look replaces the old one entirely.
  space.remember_elements(Json{{"elements", Json::array({Json{{"ref", "atspi:2"}, {"role", "frame"},
                                                               {"name", "x"}}})}});
  EXPECT_FALSE(space.element("atspi:1/0").has_value());
  EXPECT_TRUE(space.element("atspi:2").has_value());
}

}  // namespace
}  // namespace vc::tools
