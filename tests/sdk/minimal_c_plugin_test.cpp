// minimal_c_plugin_test.cpp — the C-only example (sdk/examples/minimal_c) loads and works: a
// plugin needs neither C++ nor the SDK's C++ layer.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "plugin_fixture.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const vc_test::PluginModule& minimal_c_plugin() {
  static vc_test::PluginModule module(VC_MINIMAL_C_PLUGIN_PATH);
  return module;
}

class MinimalCPluginTest : public vc_test::PluginFixture {
 protected:
  void SetUp() override {
    open(minimal_c_plugin(), [](const fs::path&) { return json::object(); });
  }
};

TEST(MinimalCPlugin, DescribesItselfHonestly) {
  const vc_plugin_descriptor* d = minimal_c_plugin().descriptor();
  ASSERT_NE(d, nullptr);
  EXPECT_STREQ(d->name, "minimal-c");
  EXPECT_NE(std::string(d->description).find("NOT a sandbox"), std::string::npos);
  EXPECT_EQ(d->capabilities & VC_CAP_ISOLATED, 0u);
}

TEST_F(MinimalCPluginTest, CreatesComputersAndRunsCommands) {
  ASSERT_EQ(run(backend_->ops->validate, json::object())->status(), VC_OK);
  auto missing = run(backend_->ops->attach, {{"computer_id", "box"}});
  EXPECT_EQ(missing->status(), VC_E_NOT_FOUND);
  EXPECT_EQ(missing->message(), "No computer named box.");
  auto created = run(backend_->ops->create, {{"computer_id", "box"}, {"temporary", false},
                                             {"resources", {{"memory", "2g"}}}});
  ASSERT_EQ(created->status(), VC_OK) << created->message();
  EXPECT_EQ(json::parse(created->json())["computer_id"], "box");
  EXPECT_EQ(json::parse(run(backend_->ops->list, json::object())->json())["computers"].size(), 1u);

  auto op = start_exec(shell("printf 'a \"quoted\"\\n'; pwd; exit 4"));
  ASSERT_TRUE(op->wait());
  ASSERT_EQ(op->status(), VC_OK) << op->message();
  EXPECT_EQ(json::parse(op->json())["exit_code"], 4);
  fs::path computer = dir_ / "state" / "computers" / "box";
  EXPECT_EQ(op->out(), "a \"quoted\"\n" + computer.string() + "\n");

  auto timed = start_exec(shell("sleep 30", 200));
  ASSERT_TRUE(timed->wait(5s));
  EXPECT_EQ(json::parse(timed->json())["outcome"], "timed_out");

  auto removed = run(backend_->ops->remove, {{"computer_id", "box"}});
  EXPECT_EQ(json::parse(removed->json())["removed"], true);
}

TEST_F(MinimalCPluginTest, RefusesBadRequestsAndCancels) {
  auto bad = run(backend_->ops->create, {{"computer_id", "../up"}});
  EXPECT_EQ(bad->status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(bad->message().rfind("Invalid create request: computer_id", 0), 0u);
  vc_test::FakeOp not_json;
  std::string garbage = "nope";
  EXPECT_EQ(backend_->ops->list(backend_, garbage.data(), garbage.size(), not_json.get()), VC_OK);
  EXPECT_EQ(not_json.status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(not_json.message(), "Invalid list request: it is not a JSON object.");

  run(backend_->ops->create, {{"computer_id", "box"}});
  auto running = start_exec(shell("sleep 30"));
  auto queued = start_exec(shell("echo never"));
  std::this_thread::sleep_for(200ms);
  backend_->ops->cancel(backend_, queued->get());
  EXPECT_EQ(queued->status(), VC_E_CANCELLED);
  backend_->ops->cancel(backend_, running->get());
  ASSERT_TRUE(running->wait(3s));
  EXPECT_EQ(running->status(), VC_E_CANCELLED);
  backend_->ops->cancel(backend_, running->get());  // late: harmless
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(running->completions(), 1);
  EXPECT_EQ(not_json.completions(), 1);
}

TEST_F(MinimalCPluginTest, CreateAdoptsAnExistingComputerOnlyWhenAsked) {
  ASSERT_EQ(run(backend_->ops->create, {{"computer_id", "box"}})->status(), VC_OK);
  auto again = run(backend_->ops->create, {{"computer_id", "box"}});
  EXPECT_EQ(again->status(), VC_E_ALREADY_EXISTS);
  EXPECT_EQ(again->message(), "Computer 'box' already exists.");
  auto adopted = run(backend_->ops->create, {{"computer_id", "box"}, {"adopt_existing", true}});
  ASSERT_EQ(adopted->status(), VC_OK) << adopted->message();
  EXPECT_EQ(json::parse(adopted->json())["computer_id"], "box");
}

}  // namespace
