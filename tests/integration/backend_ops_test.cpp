// backend_ops_test.cpp — the lifecycle operations that are not MCP tools yet (restart, factory
// reset, remove, list, create adopting an existing computer), run on the real plugin through
// the C ABI against the real engine.
#include <set>

#include "engine_test.h"
#include "test_names.h"

namespace vc::integration {
namespace {

class BackendOpsTest : public EngineTest {};

std::string engine_id(const test::ContainerEngine& engine, const std::string& name) {
  const auto inspected = engine.inspect_container(name);
  return inspected ? inspected->value("Id", "") : "";
}

TEST_P(BackendOpsTest, RestartKeepsTheFilesystem) {
  auto backend = open_backend();
  const auto created = backend->run("create", create_request(computer_id()));
  ASSERT_TRUE(created.ok()) << created.describe();
  const auto wrote = backend->run("exec", exec_request(computer_id(), "echo kept > /workspace/k.txt"));
  ASSERT_TRUE(wrote.ok()) << wrote.describe();
  const std::string id_before = engine_id(engine(), container_name());

  const auto restarted = backend->run("restart", {{"computer_id", computer_id()}});
  ASSERT_TRUE(restarted.ok()) << restarted.describe();
  EXPECT_EQ(restarted.document.value("computer_id", ""), computer_id());
  EXPECT_EQ(restarted.document.value("state", ""), "running");

  const auto read = backend->run("exec", exec_request(computer_id(), "cat /workspace/k.txt"));
  ASSERT_TRUE(read.ok()) << read.describe();
  EXPECT_EQ(read.out, "kept\n");
  EXPECT_EQ(read.document.value("exit_code", -1), 0);
  EXPECT_EQ(engine_id(engine(), container_name()), id_before);
}

TEST_P(BackendOpsTest, FactoryResetGivesAFreshFilesystemUnderTheSameId) {
  auto backend = open_backend();
  const auto created = backend->run("create", create_request(computer_id(), /*network_access=*/false));
  ASSERT_TRUE(created.ok()) << created.describe();
  ASSERT_TRUE(backend->run("exec", exec_request(computer_id(), "echo old > /workspace/k.txt")).ok());

  const auto reset = backend->run("factory_reset", {{"computer_id", computer_id()}});
  ASSERT_TRUE(reset.ok()) << reset.describe();
  EXPECT_EQ(reset.document.value("computer_id", ""), computer_id());
  EXPECT_EQ(reset.document.value("image", ""), kDebianImage);
  EXPECT_EQ(reset.document.value("network_access", true), false) << "settings are kept";
  EXPECT_EQ(reset.document.value("desktop_environment", true), false);
  EXPECT_TRUE(engine().container_running(container_name()));

  const auto read = backend->run(
      "exec", exec_request(computer_id(), "test -e /workspace/k.txt && echo present || echo gone"));
  ASSERT_TRUE(read.ok()) << read.describe();
  EXPECT_EQ(read.out, "gone\n");
}

TEST_P(BackendOpsTest, RemoveDeletesTheContainerAndIsIdempotent) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  ASSERT_TRUE(engine().inspect_container(container_name()).has_value());

  const auto removed = backend->run("remove", {{"computer_id", computer_id()}});
  ASSERT_TRUE(removed.ok()) << removed.describe();
  EXPECT_EQ(removed.document.value("removed", false), true);
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());

  const auto again = backend->run("remove", {{"computer_id", computer_id()}});
  ASSERT_TRUE(again.ok()) << again.describe();
  EXPECT_EQ(again.document.value("removed", true), false);
}

TEST_P(BackendOpsTest, AMalformedRequestCompletesWithAMessageNamingTheField) {
  auto backend = open_backend();
  // ABI 1 gives a rejected op no message, so the plugin completes such ops with one instead.
  const auto bad_id = backend->run("restart", {{"computer_id", "Bad_ID"}});
  EXPECT_FALSE(bad_id.rejected);
  ASSERT_TRUE(bad_id.completed) << bad_id.describe();
  EXPECT_EQ(bad_id.status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(bad_id.message,
            "Invalid restart request: computer_id must be 1-63 lowercase letters, numbers, or "
            "hyphens; it must start and end with a letter or number.");
  const auto missing = backend->run("exec", {{"computer_id", computer_id()}});
  ASSERT_TRUE(missing.completed) << missing.describe();
  EXPECT_EQ(missing.status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(missing.message.rfind("Invalid exec request: ", 0), 0u) << missing.message;
  EXPECT_EQ(backend->run("create", {{"computer_id", computer_id()}, {"temporary", "no"}}).status,
            VC_E_INVALID_ARGUMENT);
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());
}

// ABI 1.1: create refuses an existing computer of ours unless asked to adopt it, and then
// adopts the very same container, started again if it was stopped.
TEST_P(BackendOpsTest, CreateAdoptsAnExistingComputerOnlyWithAdoptExisting) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  const std::string id_before = engine_id(engine(), container_name());

  const auto taken = backend->run("create", create_request(computer_id()));
  EXPECT_EQ(taken.status, VC_E_ALREADY_EXISTS) << taken.describe();
  EXPECT_EQ(taken.message, "Computer '" + computer_id() + "' already exists.");

  const std::vector<std::string> stop = {"stop", "-t", "0", container_name()};
  ASSERT_TRUE(engine().run_cli(stop).ok());
  Json adopt = create_request(computer_id());
  adopt["adopt_existing"] = true;
  const auto adopted = backend->run("create", adopt);
  ASSERT_TRUE(adopted.ok()) << adopted.describe();
  EXPECT_EQ(adopted.document.value("state", ""), "running");
  EXPECT_EQ(engine_id(engine(), container_name()), id_before);
  const auto ran = backend->run("exec", exec_request(computer_id(), "true"));
  EXPECT_TRUE(ran.ok()) << ran.describe();
}

TEST_P(BackendOpsTest, ListShowsOnlyOurComputers) {
  auto backend = open_backend();
  const std::string second = another_computer_id();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  ASSERT_TRUE(backend->run("create", create_request(second, /*network_access=*/false)).ok());

  // Containers of someone else: one with our naming scheme but not our labels, one plain.
  const std::string foreign_id = another_computer_id();
  const std::string plain = test::unique_name("vc-test-plain");
  remove_at_teardown(plain);
  for (const auto& name : {container_name_for(foreign_id), plain}) {
    const std::vector<std::string> run = {"run", "-d", "--name", name, "--label", kTestLabel,
                                          kBusyboxImage, "sleep", "1000"};
    const auto started = engine().run_cli(run);
    ASSERT_TRUE(started.ok()) << started.describe(run);
  }

  const auto listed = backend->run("list", Json::object());
  ASSERT_TRUE(listed.ok()) << listed.describe();
  std::set<std::string> ids;
  for (const auto& computer : listed.document.value("computers", Json::array())) {
    const std::string id = computer.value("computer_id", "");
    ids.insert(id);
    // Every listed computer is one of this backend's: its container carries our label. (Other
    // computers on this engine may come and go meanwhile; a vanished one proves nothing.)
    const auto inspected = engine().inspect_container(container_name_for(id));
    if (!inspected) continue;
    EXPECT_EQ(inspected->value(Json::json_pointer("/Config/Labels/kilntainers.computer-id"), ""), id)
        << computer.dump();
  }
  EXPECT_TRUE(ids.count(computer_id())) << listed.describe();
  EXPECT_TRUE(ids.count(second)) << listed.describe();
  EXPECT_FALSE(ids.count(foreign_id)) << "a foreign container was listed: " << listed.describe();

  for (const auto& computer : listed.document["computers"]) {
    if (computer.value("computer_id", "") != second) continue;
    EXPECT_EQ(computer.value("network_access", true), false) << computer.dump();
    EXPECT_EQ(computer.value("temporary", true), false) << computer.dump();
    EXPECT_EQ(computer.value("state", ""), "running") << computer.dump();
  }
}

VC_INSTANTIATE_FOR_ENGINES(BackendOpsTest);

}  // namespace
}  // namespace vc::integration
