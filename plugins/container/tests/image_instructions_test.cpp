// The command tool's description (docs/compatibility.md, "Tool description").
#include <gtest/gtest.h>

#include "image_instructions.h"

namespace vc::container {
namespace {

TEST(ToolInstructions, DebianImage) {
  auto text = tool_instructions_for("debian:bookworm-slim", "/bin/bash", 120);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("Debian"), std::string::npos);
  EXPECT_NE(text->find("Commands run in bash."), std::string::npos);
  EXPECT_NE(text->find("120 seconds"), std::string::npos);
  EXPECT_NE(text->find("\n\n"), std::string::npos);
  EXPECT_NE(text->find("cat > file.txt"), std::string::npos);
}

TEST(ToolInstructions, DesktopImageAndShellBasename) {
  auto text = tool_instructions_for("mcp-virtual-computer-desktop:bookworm", "/usr/bin/zsh", 30);
  ASSERT_TRUE(text);
  EXPECT_NE(text->find("Commands run in zsh."), std::string::npos);
  EXPECT_NE(text->find("30 seconds"), std::string::npos);
}

TEST(ToolInstructions, OtherImagesAreNotDescribed) {
  EXPECT_FALSE(tool_instructions_for("vc-test-busybox:latest", "/bin/sh", 120));
  EXPECT_FALSE(tool_instructions_for("debian:bookworm", "/bin/bash", 120));
}

}  // namespace
}  // namespace vc::container
