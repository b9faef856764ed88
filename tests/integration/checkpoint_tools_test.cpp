// checkpoint_tools_test.cpp — the checkpoint tools and computer_fork through the real host, as an
// agent uses them: a command, a checkpoint, a risky change (files everywhere, a file tool
// write), a restore, and the next command on the same computer. Checked from outside too: the
// engine's own exec and image list.
#include <string>

#include "engine_test.h"

namespace vc::integration {
namespace {

class CheckpointToolsTest : public EngineTest {
 protected:
  void TearDown() override {
    if (host_) close_host(host_);
    EngineTest::TearDown();
  }
  void start(std::vector<std::string> extra_args = {}) {
    HostOptions options;
    options.extra_args = std::move(extra_args);
    host_ = start_host(options);
  }
  Json tool(const std::string& name, const Json& arguments = Json::object()) {
    return host_->call_tool(name, arguments, 180s);
  }
  Json ok(const std::string& name, const Json& arguments = Json::object()) {
    const Json result = tool(name, arguments);
    EXPECT_FALSE(test::McpClient::is_error(result))
        << name << " " << arguments.dump() << " failed: " << result.dump().substr(0, 800);
    return test::McpClient::payload_of(result);
  }
  // The error sentence of a call that must fail.
  std::string refused(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_TRUE(test::McpClient::is_error(result)) << name << " " << result.dump();
    return test::McpClient::payload_of(result).value("error", result.dump());
  }
  std::string outside(const std::string& container, const std::string& script) const {
    const auto ran = engine().run_cli({"exec", container, "sh", "-c", script});
    return ran.out;
  }

  std::unique_ptr<test::McpClient> host_;
};

TEST_P(CheckpointToolsTest, AnAgentUndoesARiskyChangeWithACheckpointOnTheSameComputer) {
  start();
  execute(*host_, {{"command", "echo original > /workspace/notes.txt && mkdir -p /opt/app && "
                               "echo 1 > /opt/app/version"}});
  ok("set_network_access", {{"enabled", false}});

  const Json taken = ok("checkpoint_create", {{"name", "before-upgrade"}});
  EXPECT_EQ(taken.value("ok", false), true) << taken.dump();
  EXPECT_EQ(taken.value("computer_id", ""), computer_id());
  EXPECT_EQ(taken["checkpoint"].value("name", ""), "before-upgrade") << taken.dump();
  EXPECT_EQ(taken["checkpoint"].value("processes", true), false) << taken.dump();

  // The risky change: a command that also installs a package (built in the computer: the
  // network is off), then a file tool.
  const Json changed = execute(
      *host_, {{"command", "echo broken > /workspace/notes.txt && echo 2 > /opt/app/version "
                           "&& echo extra > /etc/vc-extra.conf && mkdir -p /tmp/p/DEBIAN && "
                           "printf 'Package: vc-probe\\nVersion: 1.0\\nArchitecture: all\\n"
                           "Maintainer: t <t@example.invalid>\\nDescription: probe\\n' > "
                           "/tmp/p/DEBIAN/control && dpkg-deb -b /tmp/p /tmp/p.deb >/dev/null && "
                           "dpkg -i /tmp/p.deb >/dev/null && dpkg -s vc-probe | head -2"}});
  ASSERT_NE(changed["stdout"].get<std::string>().find("Status: install ok installed"),
            std::string::npos)
      << changed.dump();
  ok("write_file", {{"path", "new.txt"}, {"content", "written after the checkpoint\n"}});

  const Json listed = ok("checkpoint_list");
  ASSERT_EQ(listed.value("count", 0), 1) << listed.dump();
  EXPECT_EQ(listed["checkpoints"][0].value("name", ""), "before-upgrade");
  EXPECT_GT(listed["checkpoints"][0].value("size_bytes", 0), 0);

  const Json restored = ok("checkpoint_restore", {{"name", "before-upgrade"}});
  EXPECT_EQ(restored.value("ok", false), true) << restored.dump();
  EXPECT_EQ(restored.value("computer_id", ""), computer_id());

  // The next command runs on the same computer, with the files of the checkpoint.
  const Json after = execute(*host_, {{"command", "cat /workspace/notes.txt /opt/app/version; "
                                                  "test -e /etc/vc-extra.conf; echo $?"}});
  EXPECT_EQ(after["stdout"], "original\n1\n1\n") << after.dump();
  EXPECT_EQ(outside(container_name(), "cat /workspace/notes.txt"), "original\n");
  EXPECT_EQ(outside(container_name(), "dpkg -s vc-probe >/dev/null 2>&1; echo $?"), "1\n")
      << "the package installed after the checkpoint is gone";
  EXPECT_TRUE(test::McpClient::is_error(tool("read_file", {{"path", "new.txt"}})));
  // Still cut off: the network state is the computer's, not the checkpoint's.
  EXPECT_EQ(ok("runtime_status").value("network_access", true), false);
  EXPECT_EQ(engine().container_ip(container_name()), "");

  // Errors an agent makes: a bad name, an unknown one, a name taken.
  EXPECT_NE(refused("checkpoint_create", {{"name", "has space"}}).find("letters, digits"),
            std::string::npos);
  EXPECT_NE(refused("checkpoint_restore", {{"name", "nope"}}).find("no checkpoint named 'nope'"),
            std::string::npos);
  EXPECT_NE(refused("checkpoint_create", {{"name", "before-upgrade"}}).find("already has"),
            std::string::npos);
  EXPECT_EQ(outside(container_name(), "cat /workspace/notes.txt"), "original\n")
      << "a refused call touches nothing";

  const Json deleted = ok("checkpoint_delete", {{"name", "before-upgrade"}});
  EXPECT_EQ(deleted.value("deleted", false), true) << deleted.dump();
  EXPECT_EQ(ok("checkpoint_list").value("count", -1), 0);
  // Its image lives on only as the tag the restored computer runs.
  for (const auto& reference : checkpoint_images_of(engine(), computer_id())) {
    EXPECT_EQ(reference.find("mcp-virtual-computer-checkpoint/"), std::string::npos) << reference;
  }
}

TEST_P(CheckpointToolsTest, AnOrchestratorForksAPreparedComputerForAnotherAgent) {
  start({"--lifecycle-tools"});
  execute(*host_, {{"command", "echo prepared > /workspace/setup.txt"}});
  ok("checkpoint_create", {{"name", "prepared"}});
  execute(*host_, {{"command", "echo changed > /workspace/setup.txt"}});

  const std::string fork = another_computer_id();
  const Json forked = ok("computer_fork", {{"computer_id", computer_id()},
                                           {"checkpoint", "prepared"},
                                           {"new_computer_id", fork}});
  EXPECT_EQ(forked.value("computer_id", ""), fork) << forked.dump();
  EXPECT_EQ(forked["checkpoint"].value("name", ""), "prepared") << forked.dump();
  EXPECT_EQ(outside(container_name_for(fork), "cat /workspace/setup.txt"), "prepared\n");

  // The checkpoint tools act on another computer by id; the server's own stays as it is.
  ok("checkpoint_create", {{"computer_id", fork}, {"name", "fork-own"}});
  EXPECT_EQ(ok("checkpoint_list", {{"computer_id", fork}}).value("count", 0), 1);
  EXPECT_EQ(ok("checkpoint_list").value("count", 0), 1);
  EXPECT_EQ(outside(container_name(), "cat /workspace/setup.txt"), "changed\n");

  // Without a checkpoint: the current files.
  const std::string now = another_computer_id();
  const Json current = ok("computer_fork", {{"computer_id", computer_id()}, {"new_computer_id", now}});
  EXPECT_TRUE(current["checkpoint"].is_null()) << current.dump();
  EXPECT_EQ(outside(container_name_for(now), "cat /workspace/setup.txt"), "changed\n");

  // Deleting a fork deletes its checkpoints.
  ok("computer_delete", {{"computer_id", fork}});
  EXPECT_TRUE(checkpoint_images_of(engine(), fork).empty());
  EXPECT_FALSE(engine().inspect_container(container_name_for(fork)).has_value());
}

TEST_P(CheckpointToolsTest, TheFlagHidesTheCheckpointTools) {
  start({"--no-checkpoint-tools"});
  const Json listed = host_->request_result("tools/list", Json::object(), 30s);
  for (const auto& tool : listed["tools"]) {
    EXPECT_EQ(tool.value("name", "").rfind("checkpoint_", 0), std::string::npos) << tool.dump();
  }
}

VC_INSTANTIATE_FOR_ENGINES(CheckpointToolsTest);

}  // namespace
}  // namespace vc::integration
