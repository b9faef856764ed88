// template_backend_test.cpp — drives the template plugin (sdk/template, vc-backend-template.so)
// through the C ABI with a fake host: what a plugin author starts from must really work.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "plugin_fixture.h"

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const vc_test::PluginModule& template_plugin() {
  static vc_test::PluginModule module(VC_TEMPLATE_PLUGIN_PATH);
  return module;
}

class TemplateBackendTest : public vc_test::PluginFixture {
 protected:
  void SetUp() override {
    open(template_plugin(), [](const fs::path& dir) {
      return json{{"options", {{"computers-dir", (dir / "computers").string()}}}};
    });
  }
  void create(const std::string& id) {
    auto op = run(backend_->ops->create,
                  {{"computer_id", id}, {"temporary", false}, {"network_access", true},
                   {"desktop_environment", false}, {"workspace_directory", "/workspace"},
                   {"shell", "/bin/sh"}});
    ASSERT_EQ(op->status(), VC_OK) << op->message();
  }
};

TEST(TemplateDescriptor, SaysItIsNotASandbox) {
  const vc_plugin_descriptor* d = template_plugin().descriptor();
  ASSERT_NE(d, nullptr);
  EXPECT_STREQ(d->id, "org.mcp-virtual-computer.template");
  EXPECT_STREQ(d->name, "template");
  EXPECT_NE(std::string(d->description).find("NOT a sandbox"), std::string::npos);
  EXPECT_EQ(d->capabilities & VC_CAP_ISOLATED, 0u);
  ASSERT_NE(d->options[0], nullptr);
  EXPECT_STREQ(d->options[0]->name, "computers-dir");
  EXPECT_EQ(template_plugin().descriptor(2), nullptr);
}

TEST_F(TemplateBackendTest, SlotsWithoutAMemberAreNull) {
  EXPECT_NE(backend_->ops->exec, nullptr);
  EXPECT_EQ(backend_->ops->restart, nullptr);
  EXPECT_EQ(backend_->ops->set_network_access, nullptr);
  EXPECT_EQ(backend_->ops->wait_for_death, nullptr);
  EXPECT_EQ(backend_->ops->get_extension, nullptr);
}

TEST_F(TemplateBackendTest, ComputersAreDirectories) {
  auto validate = run(backend_->ops->validate, json::object());
  ASSERT_EQ(validate->status(), VC_OK) << validate->message();
  auto missing = run(backend_->ops->attach, {{"computer_id", "box"}, {"network_access", true},
                                             {"desktop_environment", false}, {"shell", "/bin/sh"}});
  EXPECT_EQ(missing->status(), VC_E_NOT_FOUND);
  EXPECT_EQ(missing->message(), "No computer named box.");
  create("box");
  EXPECT_TRUE(fs::is_directory(dir_ / "computers" / "box"));
  auto listed = run(backend_->ops->list, json::object());
  EXPECT_EQ(json::parse(listed->json())["computers"][0]["computer_id"], "box");
  auto removed = run(backend_->ops->remove, {{"computer_id", "box"}});
  EXPECT_EQ(json::parse(removed->json())["removed"], true);
  EXPECT_FALSE(fs::exists(dir_ / "computers" / "box"));
}

TEST_F(TemplateBackendTest, CreateAdoptsAnExistingComputerOnlyWhenAsked) {
  create("box");
  json request = {{"computer_id", "box"}, {"temporary", false}, {"network_access", true},
                  {"desktop_environment", false}, {"workspace_directory", "/workspace"},
                  {"shell", "/bin/sh"}};
  auto taken = run(backend_->ops->create, request);
  EXPECT_EQ(taken->status(), VC_E_ALREADY_EXISTS);
  EXPECT_EQ(taken->message(), "Computer 'box' already exists.");
  request["adopt_existing"] = true;
  auto adopted = run(backend_->ops->create, request);
  ASSERT_EQ(adopted->status(), VC_OK) << adopted->message();
  EXPECT_EQ(json::parse(adopted->json())["computer_id"], "box");
}

TEST_F(TemplateBackendTest, RefusesABadRequestWithAMessage) {
  auto op = run(backend_->ops->create, {{"computer_id", "../escape"}});
  EXPECT_EQ(op->status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(op->message().rfind("Invalid create request: computer_id must be", 0), 0u)
      << op->message();
  EXPECT_FALSE(fs::exists(dir_ / "escape"));
}

TEST_F(TemplateBackendTest, ExecStreamsOutputFeedsStdinAndReportsTheExitCode) {
  create("box");
  auto op = exec(shell("cat; echo err >&2; pwd; exit 3"), "input\n");
  ASSERT_EQ(op->status(), VC_OK) << op->message();
  json result = json::parse(op->json());
  EXPECT_EQ(result["exit_code"], 3);
  EXPECT_EQ(result["outcome"], "exited");
  EXPECT_EQ(op->out(), "input\n" + (dir_ / "computers" / "box").string() + "\n");
  EXPECT_EQ(op->err(), "err\n");

  auto missing = exec({{"computer_id", "box"}, {"argv", {"/no/such/program"}},
                       {"timeout_ms", 5000}, {"output_limit", 0}});
  EXPECT_EQ(json::parse(missing->json())["exit_code"], 127);
  auto no_dir = exec({{"computer_id", "box"}, {"command", "pwd"}, {"working_directory", "nope"},
                      {"timeout_ms", 5000}, {"output_limit", 0}});
  EXPECT_EQ(no_dir->message(), "Working directory 'nope' does not exist.");
}

TEST_F(TemplateBackendTest, TimeoutAndOutputLimitKillTheCommand) {
  create("box");
  fs::path pid_file = dir_ / "background.pid";
  auto timed = exec(shell("sleep 30 & echo $! > " + pid_file.string() + "; sleep 30", 300));
  EXPECT_EQ(json::parse(timed->json())["outcome"], "timed_out");
  pid_t background = 0;
  std::ifstream(pid_file) >> background;
  ASSERT_GT(background, 0);
  std::this_thread::sleep_for(100ms);
  EXPECT_FALSE(vc_test::process_alive(background));

  auto limited = exec(shell("yes", 10000, 1000));
  EXPECT_EQ(json::parse(limited->json())["outcome"], "output_limit_exceeded");
  EXPECT_EQ(limited->out().size(), 1000u);
}

TEST_F(TemplateBackendTest, CancelKillsTheRunningCommandAndWithdrawsTheQueuedOne) {
  create("box");
  auto running = start_exec(shell("sleep 30"));
  auto queued = start_exec(shell("echo never"));
  std::this_thread::sleep_for(200ms);
  backend_->ops->cancel(backend_, queued->get());
  ASSERT_TRUE(queued->wait(1s));
  EXPECT_EQ(queued->status(), VC_E_CANCELLED);
  backend_->ops->cancel(backend_, running->get());
  ASSERT_TRUE(running->wait(2s));
  EXPECT_EQ(running->status(), VC_E_CANCELLED);
  backend_->ops->cancel(backend_, running->get());  // late: harmless
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(running->completions(), 1);
  EXPECT_EQ(queued->out(), "");
}

TEST_F(TemplateBackendTest, DestroyKillsWhatRunsAndNeverCallsBack) {
  create("box");
  auto op = start_exec(shell("sleep 30"));
  std::this_thread::sleep_for(200ms);
  auto before = std::chrono::steady_clock::now();
  backend_->ops->destroy(backend_);
  backend_ = nullptr;
  EXPECT_LT(std::chrono::steady_clock::now() - before, 3s);
  EXPECT_EQ(op->completions(), 0);
}

}  // namespace
