// persistence_test.cpp — the computer outlives the host: stopping the host and starting it again
// finds the same container with its files (attach: docs/compatibility.md, "Getting the computer").
#include "engine_test.h"

namespace vc::integration {
namespace {

class PersistenceTest : public EngineTest {};

std::string container_id(const test::ContainerEngine& engine, const std::string& name) {
  const auto inspected = engine.inspect_container(name);
  return inspected ? inspected->value("Id", "") : "";
}

TEST_P(PersistenceTest, HostRestartFindsTheSameComputerWithItsFiles) {
  auto host = start_host();
  execute(*host, {{"command", "echo persisted > /workspace/keep.txt"}});
  const std::string id_before = container_id(engine(), container_name());
  ASSERT_FALSE(id_before.empty());
  close_host(host);

  // Stdio EOF ends the host, never the computer.
  EXPECT_TRUE(engine().container_running(container_name()));

  host = start_host();
  const Json payload = execute(*host, {{"command", "cat /workspace/keep.txt"}});
  EXPECT_EQ(payload["stdout"], "persisted\n");
  EXPECT_EQ(container_id(engine(), container_name()), id_before);
  close_host(host);
}

TEST_P(PersistenceTest, AttachStartsAStoppedComputer) {
  auto host = start_host();
  execute(*host, {{"command", "echo survived-stop > /workspace/keep.txt"}});
  const std::string id_before = container_id(engine(), container_name());
  close_host(host);

  const auto stopped = engine().run_cli({"stop", "-t", "1", container_name()});
  ASSERT_TRUE(stopped.ok()) << stopped.describe({"stop", container_name()});
  ASSERT_FALSE(engine().container_running(container_name()));

  host = start_host();
  EXPECT_EQ(execute(*host, {{"command", "cat /workspace/keep.txt"}})["stdout"], "survived-stop\n");
  EXPECT_EQ(container_id(engine(), container_name()), id_before);
  EXPECT_TRUE(engine().container_running(container_name()));
  close_host(host);
}

TEST_P(PersistenceTest, ContainerCarriesTheOriginalsNameAndLabels) {
  auto host = start_host();
  execute(*host, {{"command", "true"}});
  close_host(host);
  const auto inspected = engine().inspect_container(container_name());
  ASSERT_TRUE(inspected.has_value());
  const Json labels = inspected->value(Json::json_pointer("/Config/Labels"), Json::object());
  EXPECT_EQ(labels.value("kilntainers", ""), "true");
  EXPECT_EQ(labels.value("kilntainers.computer-id", ""), computer_id());
  EXPECT_EQ(labels.value("kilntainers.temporary", ""), "false");
  EXPECT_EQ(labels.value("kilntainers.image", ""), kDebianImage);
  EXPECT_EQ(labels.value("mcp-virtual-computer.desktop", ""), "false");
  EXPECT_EQ(labels.value("mcp-virtual-computer.workspace", ""), "/workspace");
  EXPECT_EQ(inspected->value(Json::json_pointer("/Config/WorkingDir"), ""), "/workspace");
}

VC_INSTANTIATE_FOR_ENGINES(PersistenceTest);

}  // namespace
}  // namespace vc::integration
