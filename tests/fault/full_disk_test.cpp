// full_disk_test.cpp — the disk inside the computer fills up during write_file. A small tmpfs
// is mounted at a path of the workspace (from outside, in the computer's mount namespace);
// writing more than it holds must fail with the system's reason, and the file
// that was there keeps its previous content — write_file writes a temporary file and renames
// it, so a half-written file never replaces a whole one.
#include "engine_test.h"
#include "fault_support.h"

namespace vc::integration {
namespace {

class FullDiskTest : public EngineTest {};

TEST_P(FullDiskTest, AWriteThatDoesNotFitFailsClearlyAndTheOldContentStays) {
  auto host = start_host();
  execute(*host, {{"command", "mkdir -p /workspace/small"}});
  // The computer holds no capability to mount anything (and may not gain one), so the mount is
  // made from outside, in its mount namespace.
  const auto inspected = engine().inspect_container(container_name());
  ASSERT_TRUE(inspected.has_value());
  const std::string pid = std::to_string((*inspected)["State"].value("Pid", 0));
  const std::vector<std::string> mount = {"nsenter", "--target", pid, "--mount", "mount", "-t",
                                          "tmpfs", "-o", "size=64k", "tmpfs", "/workspace/small"};
  const auto mounted = test::run_command(mount);
  ASSERT_TRUE(mounted.ok()) << mounted.describe(mount);

  const std::string original = "the content before the disk filled up\n";
  const Json written =
      host->call_tool("write_file", {{"path", "small/notes.txt"}, {"content", original}}, 120s);
  ASSERT_FALSE(test::McpClient::is_error(written)) << written.dump();

  const std::string too_big(512 * 1024, 'x');  // 8 times what the tmpfs holds
  const Json failed =
      host->call_tool("write_file", {{"path", "small/notes.txt"}, {"content", too_big}}, 120s);
  ASSERT_TRUE(test::McpClient::is_error(failed)) << failed.dump().substr(0, 400);
  EXPECT_NE(fault::tool_error(failed).find("No space left on device"), std::string::npos)
      << fault::tool_error(failed);

  const Json read = host->call_tool("read_file", {{"path", "small/notes.txt"}}, 120s);
  ASSERT_FALSE(test::McpClient::is_error(read)) << read.dump();
  EXPECT_EQ(test::McpClient::payload_of(read)["content"], original);
  // No temporary file is left to fill the disk further.
  const Json listed = execute(*host, {{"command", "ls -A /workspace/small"}});
  EXPECT_EQ(listed["stdout"], "notes.txt\n") << listed.dump();
  // Once there is room again, writing works.
  execute(*host, {{"command", "true"}});
  const Json again =
      host->call_tool("write_file", {{"path", "small/notes.txt"}, {"content", "fits\n"}}, 120s);
  EXPECT_FALSE(test::McpClient::is_error(again)) << again.dump();
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(FullDiskTest);

}  // namespace
}  // namespace vc::integration
