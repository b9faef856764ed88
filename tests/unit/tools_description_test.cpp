// Tests of terminal_execute's description assembly (docs/compatibility.md, "Tool description").
#include <gtest/gtest.h>

#include "tools/tool_description.h"

namespace vc::tools {
namespace {

const std::optional<std::string> kNone;

TEST(ToolDescriptionTest, TheOverrideReplacesEverything) {
  auto description = assemble_tool_description("Custom text.", kNone, "Backend text.");
  ASSERT_TRUE(description.ok());
  EXPECT_EQ(description.value(), "Custom text.");
  auto without_backend = assemble_tool_description("Custom text.", kNone, kNone);
  ASSERT_TRUE(without_backend.ok());
  EXPECT_EQ(without_backend.value(), "Custom text.");
}

TEST(ToolDescriptionTest, TheBackendTextIsUsedAsIs) {
  auto description = assemble_tool_description(kNone, kNone, "Run commands in Debian bash.");
  ASSERT_TRUE(description.ok());
  EXPECT_EQ(description.value(), "Run commands in Debian bash.");
}

TEST(ToolDescriptionTest, TheExtensionIsAppendedAfterABlankLine) {
  auto description = assemble_tool_description(kNone, "Prefer python3.", "Backend text.");
  ASSERT_TRUE(description.ok());
  EXPECT_EQ(description.value(), "Backend text.\n\nPrefer python3.");
}

TEST(ToolDescriptionTest, MissingOrEmptyBackendTextNeedsAnOverride) {
  for (const auto& backend_text : {kNone, std::optional<std::string>("")}) {
    auto description = assemble_tool_description(kNone, kNone, backend_text);
    ASSERT_FALSE(description.ok());
    const std::string& message = description.error().message;
    EXPECT_NE(message.find("does not provide tool instructions"), std::string::npos);
    EXPECT_NE(message.find("--tool-instruction-override"), std::string::npos);
  }
  EXPECT_FALSE(assemble_tool_description(kNone, "More.", kNone).ok());
}

TEST(ToolDescriptionTest, OverrideAndExtensionTogetherAreRefused) {
  auto description = assemble_tool_description("Custom.", "More.", "Backend text.");
  ASSERT_FALSE(description.ok());
  EXPECT_EQ(description.error().message,
            "Cannot use both --tool-instruction-override and --extended-tool-instruction. Use "
            "override to replace the description entirely, or extended to append to the backend "
            "default.");
}

}  // namespace
}  // namespace vc::tools
