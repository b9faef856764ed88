// checkpoint_ops_test.cpp — the checkpoints extension (ext/vc_backend_checkpoints.h) of the real
// container plugins, driven through the C ABI against the real engines.
//
// Every claim is checked from outside the plugin: files through the engine's own `exec`, the
// container's identity and networks through `inspect`, images through the engine's image list.
#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "engine_test.h"

namespace vc::integration {
namespace {

class CheckpointOpsTest : public EngineTest {
 protected:
  // A command in the container through the engine's CLI (not through the plugin).
  test::CommandResult outside(const std::string& container, const std::string& script) const {
    return engine().run_cli({"exec", container, "sh", "-c", script});
  }
  std::string engine_id(const std::string& container) const {
    const auto inspected = engine().inspect_container(container);
    return inspected ? inspected->value("Id", "") : "";
  }
  void run_ok(test::BackendDriver& backend, const std::string& id, const std::string& script) {
    const auto ran = backend.run("exec", exec_request(id, script));
    ASSERT_TRUE(ran.ok()) << ran.describe();
    ASSERT_EQ(ran.document.value("exit_code", -1), 0) << script << "\n" << ran.out << ran.err;
  }
  static std::vector<std::string> names_of(const test::OpOutcome& listed) {
    std::vector<std::string> names;
    for (const auto& checkpoint : listed.document.value("checkpoints", Json::array())) {
      names.push_back(checkpoint.value("name", ""));
    }
    return names;
  }
};

// A package installed with dpkg (built in the computer: no network needed).
constexpr const char* kInstallProbePackage =
    "set -e; mkdir -p /tmp/p/DEBIAN /tmp/p/usr/local/bin; "
    "printf 'Package: vc-probe\\nVersion: 1.0\\nArchitecture: all\\nMaintainer: t "
    "<t@example.invalid>\\nDescription: probe\\n' > /tmp/p/DEBIAN/control; "
    "printf '#!/bin/sh\\necho probe\\n' > /tmp/p/usr/local/bin/vc-probe; "
    "chmod 755 /tmp/p/usr/local/bin/vc-probe; dpkg-deb -b /tmp/p /tmp/p.deb >/dev/null; "
    "dpkg -i /tmp/p.deb >/dev/null; rm -rf /tmp/p /tmp/p.deb";

TEST_P(CheckpointOpsTest, RestoreBringsBackEveryFileUnderTheSameComputerWithItsNetworkOff) {
  auto backend = open_backend();
  const auto created = backend->run("create", create_request(computer_id(), /*network_access=*/false));
  ASSERT_TRUE(created.ok()) << created.describe();
  run_ok(*backend, computer_id(),
         "echo one > /workspace/a.txt && echo etc-1 > /etc/vc-probe.conf && "
         "mkdir -p /opt/tool && echo v1 > /opt/tool/version");

  const auto taken = backend->run("create_checkpoint", {{"computer_id", computer_id()},
                                                        {"name", "before-upgrade"}});
  ASSERT_TRUE(taken.ok()) << taken.describe();
  const Json& checkpoint = taken.document["checkpoint"];
  EXPECT_EQ(checkpoint.value("name", ""), "before-upgrade");
  EXPECT_EQ(checkpoint.value("computer_id", ""), computer_id());
  EXPECT_EQ(checkpoint.value("processes", true), false);
  EXPECT_GT(checkpoint.value("size_bytes", 0), 0) << "the commit holds the files written";
  EXPECT_EQ(taken.document["computer"].value("state", ""), "running");

  // The risky change: files everywhere, and a package.
  run_ok(*backend, computer_id(),
         std::string("rm /workspace/a.txt && echo etc-2 > /etc/vc-probe.conf && "
                     "echo v2 > /opt/tool/version && ") + kInstallProbePackage);
  ASSERT_TRUE(outside(container_name(), "dpkg -s vc-probe").ok()) << "the package is installed";
  const std::string before = engine_id(container_name());

  const auto restored = backend->run("restore_checkpoint", {{"computer_id", computer_id()},
                                                            {"name", "before-upgrade"}});
  ASSERT_TRUE(restored.ok()) << restored.describe();
  EXPECT_EQ(restored.document["checkpoint"].value("name", ""), "before-upgrade");
  const Json& computer = restored.document["computer"];
  EXPECT_EQ(computer.value("computer_id", ""), computer_id());
  EXPECT_EQ(computer.value("state", ""), "running");
  EXPECT_EQ(computer.value("network_access", true), false) << computer.dump();

  // The engine's view: the same computer name, a new container, nothing left aside.
  const std::string after = engine_id(container_name());
  ASSERT_FALSE(after.empty());
  EXPECT_NE(after, before);
  EXPECT_FALSE(engine().inspect_container(container_name() + ".replaced").has_value());
  EXPECT_EQ(engine().container_ip(container_name()), "") << "still cut off from the network";

  const auto files = outside(container_name(),
                             "cat /workspace/a.txt /etc/vc-probe.conf /opt/tool/version");
  EXPECT_EQ(files.out, "one\netc-1\nv1\n") << files.err;
  EXPECT_FALSE(outside(container_name(), "dpkg -s vc-probe").ok()) << "the package is gone";
  EXPECT_FALSE(outside(container_name(), "test -e /usr/local/bin/vc-probe").ok());

  // The plugin runs commands in the restored computer, and the checkpoint is still there.
  const auto again = backend->run("exec", exec_request(computer_id(), "cat /workspace/a.txt"));
  ASSERT_TRUE(again.ok()) << again.describe();
  EXPECT_EQ(again.out, "one\n");
  const auto listed = backend->run("list_checkpoints", {{"computer_id", computer_id()}});
  ASSERT_TRUE(listed.ok()) << listed.describe();
  EXPECT_EQ(names_of(listed), std::vector<std::string>{"before-upgrade"});
  // The computer list shows it once (the containers a restore made aside are not computers).
  const auto computers = backend->run("list", Json::object());
  ASSERT_TRUE(computers.ok()) << computers.describe();
  int seen = 0;
  for (const auto& row : computers.document["computers"]) {
    seen += row.value("computer_id", "") == computer_id() ? 1 : 0;
  }
  EXPECT_EQ(seen, 1);

  // The checkpoint can go while the computer made from it runs on.
  const auto deleted = backend->run("delete_checkpoint", {{"computer_id", computer_id()},
                                                          {"name", "before-upgrade"}});
  ASSERT_TRUE(deleted.ok()) << deleted.describe();
  const auto none = backend->run("list_checkpoints", {{"computer_id", computer_id()}});
  EXPECT_EQ(names_of(none), std::vector<std::string>{}) << none.document.dump();
  EXPECT_EQ(outside(container_name(), "cat /workspace/a.txt").out, "one\n");
}

TEST_P(CheckpointOpsTest, AForkIsAnIndependentComputerFromACheckpointOrFromTheCurrentFiles) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  run_ok(*backend, computer_id(), "echo base > /workspace/state.txt");
  ASSERT_TRUE(backend->run("create_checkpoint", {{"computer_id", computer_id()}, {"name", "base"}}).ok());
  run_ok(*backend, computer_id(), "echo later > /workspace/state.txt");

  const std::string fork_id = another_computer_id();
  const auto forked = backend->run("fork_checkpoint", {{"computer_id", computer_id()},
                                                       {"new_computer_id", fork_id},
                                                       {"name", "base"}});
  ASSERT_TRUE(forked.ok()) << forked.describe();
  EXPECT_EQ(forked.document["computer"].value("computer_id", ""), fork_id);
  EXPECT_EQ(forked.document["checkpoint"].value("name", ""), "base");
  EXPECT_EQ(outside(container_name_for(fork_id), "cat /workspace/state.txt").out, "base\n");

  // Changes in one never appear in the other.
  run_ok(*backend, fork_id, "echo fork > /workspace/state.txt && echo only-fork > /etc/fork.conf");
  EXPECT_EQ(outside(container_name(), "cat /workspace/state.txt").out, "later\n");
  EXPECT_FALSE(outside(container_name(), "test -e /etc/fork.conf").ok());
  run_ok(*backend, computer_id(), "echo source > /workspace/state.txt");
  EXPECT_EQ(outside(container_name_for(fork_id), "cat /workspace/state.txt").out, "fork\n");

  // Without a name: the source's files as they are now.
  const std::string current_id = another_computer_id();
  const auto current = backend->run("fork_checkpoint", {{"computer_id", computer_id()},
                                                        {"new_computer_id", current_id}});
  ASSERT_TRUE(current.ok()) << current.describe();
  EXPECT_TRUE(current.document["checkpoint"].is_null());
  EXPECT_EQ(outside(container_name_for(current_id), "cat /workspace/state.txt").out, "source\n");
  // That on-the-fly state is not a checkpoint of the source.
  const auto listed = backend->run("list_checkpoints", {{"computer_id", computer_id()}});
  EXPECT_EQ(names_of(listed), std::vector<std::string>{"base"});

  // A fork onto an existing computer is refused, and touches nothing.
  const auto taken = backend->run("fork_checkpoint", {{"computer_id", computer_id()},
                                                      {"new_computer_id", fork_id}});
  EXPECT_EQ(taken.status, VC_E_ALREADY_EXISTS) << taken.describe();
  EXPECT_EQ(outside(container_name_for(fork_id), "cat /workspace/state.txt").out, "fork\n");

  // Removing a fork removes the image tag it ran; the source's checkpoint stays.
  ASSERT_TRUE(backend->run("remove", {{"computer_id", fork_id}}).ok());
  ASSERT_TRUE(backend->run("remove", {{"computer_id", current_id}}).ok());
  EXPECT_TRUE(checkpoint_images_of(engine(), fork_id).empty());
  EXPECT_TRUE(checkpoint_images_of(engine(), current_id).empty());
  EXPECT_EQ(checkpoint_images_of(engine(), computer_id()).size(), 1u);
}

TEST_P(CheckpointOpsTest, NamesDuplicatesTheCapAndUnknownNamesAreClearErrorsThatTouchNothing) {
  auto backend = open_backend({{"max-checkpoints", 2}});
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  const auto checkpoint = [&](const std::string& op, const Json& name) {
    return backend->run(op, {{"computer_id", computer_id()}, {"name", name}});
  };

  for (const Json& bad : {Json("has space"), Json("-leading-dash"), Json(std::string(64, 'a')),
                          Json(""), Json(7)}) {
    const auto refused = checkpoint("create_checkpoint", bad);
    EXPECT_EQ(refused.status, VC_E_INVALID_ARGUMENT) << bad.dump() << " " << refused.describe();
    EXPECT_NE(refused.message.find("checkpoint name must be 1-63"), std::string::npos)
        << refused.message;
  }
  ASSERT_TRUE(checkpoint("create_checkpoint", "first").ok());
  const auto twice = checkpoint("create_checkpoint", "first");
  EXPECT_EQ(twice.status, VC_E_ALREADY_EXISTS) << twice.describe();
  EXPECT_NE(twice.message.find("delete that checkpoint first"), std::string::npos) << twice.message;
  ASSERT_TRUE(checkpoint("create_checkpoint", "second.v2").ok());

  const auto full = checkpoint("create_checkpoint", "third");
  EXPECT_EQ(full.status, VC_E_FAILED) << full.describe();
  EXPECT_NE(full.message.find("--max-checkpoints 2"), std::string::npos) << full.message;
  const std::string code = full.document.value("code", "");
  EXPECT_EQ(code.substr(code.find('.') + 1), "checkpoint_limit") << full.document.dump();

  const auto listed = backend->run("list_checkpoints", {{"computer_id", computer_id()}});
  ASSERT_TRUE(listed.ok()) << listed.describe();
  EXPECT_EQ(names_of(listed), (std::vector<std::string>{"first", "second.v2"})) << "oldest first";

  const std::string before = engine_id(container_name());
  const auto unknown_restore = checkpoint("restore_checkpoint", "nope");
  EXPECT_EQ(unknown_restore.status, VC_E_NOT_FOUND) << unknown_restore.describe();
  EXPECT_NE(unknown_restore.message.find("no checkpoint named 'nope'"), std::string::npos);
  EXPECT_EQ(engine_id(container_name()), before) << "an unknown name touches nothing";
  EXPECT_EQ(checkpoint("delete_checkpoint", "nope").status, VC_E_NOT_FOUND);
  EXPECT_EQ(backend->run("fork_checkpoint", {{"computer_id", computer_id()},
                                             {"new_computer_id", another_computer_id()},
                                             {"name", "nope"}})
                .status,
            VC_E_NOT_FOUND);

  const auto deleted = checkpoint("delete_checkpoint", "first");
  ASSERT_TRUE(deleted.ok()) << deleted.describe();
  EXPECT_EQ(deleted.document.value("computer_id", ""), computer_id());
  EXPECT_EQ(deleted.document.value("name", ""), "first");
  EXPECT_EQ(deleted.document.value("deleted", false), true);
  EXPECT_TRUE(checkpoint("create_checkpoint", "third").ok()) << "room again after a delete";

  const auto no_computer = backend->run("list_checkpoints", {{"computer_id", another_computer_id()}});
  EXPECT_EQ(no_computer.status, VC_E_NOT_FOUND) << no_computer.describe();
}

TEST_P(CheckpointOpsTest, AResetKeepsTheCheckpointsAndRemovingTheComputerDeletesThem) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  run_ok(*backend, computer_id(), "echo saved > /workspace/s.txt");
  ASSERT_TRUE(backend->run("create_checkpoint", {{"computer_id", computer_id()}, {"name", "saved"}}).ok());
  ASSERT_TRUE(backend->run("restore_checkpoint", {{"computer_id", computer_id()}, {"name", "saved"}}).ok());

  const auto reset = backend->run("factory_reset", {{"computer_id", computer_id()}});
  ASSERT_TRUE(reset.ok()) << reset.describe();
  EXPECT_EQ(reset.document.value("image", ""), kDebianImage) << "back to the image, not the checkpoint";
  EXPECT_FALSE(outside(container_name(), "test -e /workspace/s.txt").ok());
  const auto listed = backend->run("list_checkpoints", {{"computer_id", computer_id()}});
  EXPECT_EQ(names_of(listed), std::vector<std::string>{"saved"});
  // Restoring after the reset brings the files back again.
  ASSERT_TRUE(backend->run("restore_checkpoint", {{"computer_id", computer_id()}, {"name", "saved"}}).ok());
  EXPECT_EQ(outside(container_name(), "cat /workspace/s.txt").out, "saved\n");

  ASSERT_TRUE(backend->run("remove", {{"computer_id", computer_id()}}).ok());
  EXPECT_EQ(checkpoint_images_of(engine(), computer_id()), std::vector<std::string>{});
}

// A temporary computer's container goes away when it stops (the engine removes it): a restore
// must not stop it before the new one answers, or a failure would leave no computer at all.
TEST_P(CheckpointOpsTest, ATemporaryComputerIsRestoredWithoutBeingLostOnTheWay) {
  auto backend = open_backend();
  Json request = create_request(computer_id());
  request["temporary"] = true;
  ASSERT_TRUE(backend->run("create", request).ok());
  run_ok(*backend, computer_id(), "echo saved > /workspace/t.txt");
  ASSERT_TRUE(backend->run("create_checkpoint", {{"computer_id", computer_id()}, {"name", "t"}}).ok());
  run_ok(*backend, computer_id(), "echo current > /workspace/t.txt");
  const auto restored = backend->run("restore_checkpoint", {{"computer_id", computer_id()}, {"name", "t"}});
  ASSERT_TRUE(restored.ok()) << restored.describe();
  EXPECT_EQ(restored.document["computer"].value("temporary", false), true);
  EXPECT_EQ(outside(container_name(), "cat /workspace/t.txt").out, "saved\n");
  EXPECT_FALSE(engine().inspect_container(container_name() + ".replaced").has_value());
}

// A cancel at any moment of a restore ends it exactly once and leaves one running computer: as
// it was (the restore rolled back) or restored (the cancel came after the last step).
TEST_P(CheckpointOpsTest, ACancelledRestoreLeavesTheComputerWholeAndRunning) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  run_ok(*backend, computer_id(), "echo saved > /workspace/s.txt");
  ASSERT_TRUE(backend->run("create_checkpoint", {{"computer_id", computer_id()}, {"name", "s"}}).ok());
  for (const auto delay : {0ms, 150ms, 400ms}) {
    run_ok(*backend, computer_id(), "echo current > /workspace/s.txt");
    auto op = backend->start("restore_checkpoint", {{"computer_id", computer_id()}, {"name", "s"}});
    std::this_thread::sleep_for(delay);
    backend->cancel(*op);
    ASSERT_TRUE(op->wait(120s)) << "the cancelled restore never completed";
    const auto outcome = op->outcome();
    EXPECT_EQ(outcome.contract_violations, 0);
    EXPECT_TRUE(outcome.ok() || outcome.status == VC_E_CANCELLED) << outcome.describe();
    const std::string content = outside(container_name(), "cat /workspace/s.txt").out;
    EXPECT_EQ(content, outcome.ok() ? "saved\n" : "current\n")
        << "after " << delay.count() << " ms: " << outcome.describe();
    EXPECT_TRUE(engine().container_running(container_name()));
    EXPECT_FALSE(engine().inspect_container(container_name() + ".replaced").has_value());
    const auto again = backend->run("exec", exec_request(computer_id(), "true"));
    EXPECT_TRUE(again.ok()) << again.describe();
  }
}

VC_INSTANTIATE_FOR_ENGINES(CheckpointOpsTest);

}  // namespace
}  // namespace vc::integration
