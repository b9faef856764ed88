// Tests of the checkpoint tools over a fake backend: when they are offered (the backend's
// extension, --no-checkpoint-tools, --lifecycle-tools adding computer_id and computer_fork),
// their argument checks before any backend op, their payloads, and restore's confirmation.
#include <algorithm>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vc-backend-1/vc_status.h>

#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "computers_fake_backend.h"
#include "tools/tool_catalog.h"

namespace vc::tools {
namespace {

using backend_proxy::Operation;
using test_support::fake_computer_info;
using test_support::FakeReply;

// A tools/call as the session would run it; it can ask the client when `elicitation` is set.
class RecordingCall : public mcp::ToolCall {
 public:
  explicit RecordingCall(Json arguments, bool elicitation = false)
      : arguments_(std::move(arguments)), elicitation_(elicitation) {}

  const Json& arguments() const override { return arguments_; }
  void report_progress(double, std::optional<double>, const std::string& message) override {
    progress.push_back(message);
  }
  void log(mcp::LogLevel, const Json&) override {}
  void on_cancel(std::function<void()>) override {}
  bool cancelled() const override { return false; }
  uint64_t session_serial() const override { return 1; }
  bool client_supports(const std::string& capability) const override {
    return elicitation_ && capability == "elicitation";
  }
  void request_client(const std::string& method, Json params,
                      std::function<void(Expected<Json>)> done) override {
    asked.push_back({{"method", method}, {"params", std::move(params)}});
    answer = std::move(done);
  }
  bool become_task(const std::string& status_message) override {
    task_status = status_message;
    return false;
  }
  void finish(mcp::ToolResult result) override { results.push_back(std::move(result)); }

  const Json& payload() const { return results.at(0).structured_content; }

  // Hands the client's answer over and drops the callback, which holds this call (as the
  // session's table of requests to the client does).
  void answer_once(Json reply) {
    auto done = std::move(answer);
    answer = nullptr;
    done(std::move(reply));
  }

  std::vector<mcp::ToolResult> results;
  std::vector<Json> asked;
  std::vector<std::string> progress;
  std::function<void(Expected<Json>)> answer;
  std::optional<std::string> task_status;

 private:
  Json arguments_;
  bool elicitation_;
};

Json checkpoint_document(const std::string& name, const std::string& computer_id) {
  return Json{{"name", name},        {"computer_id", computer_id}, {"created", "2026-12-07T17:02:03Z"},
              {"size_bytes", 4096},  {"processes", false}};
}

class CheckpointToolsTest : public test_support::FakeBackendTest {
 protected:
  void SetUp() override {
    FakeBackendTest::SetUp();
    backend_->set_checkpoints(true);
    computers::ComputerSettings settings;
    settings.computer_id = test_support::kFakeComputerId;
    registry_ = std::make_unique<computers::ComputerRegistry>(backend_, settings);
    lifecycle_ = std::make_unique<computers::ComputerLifecycle>(backend_, settings, registry_.get());
  }

  void release_users() override {
    catalog_.clear();
    lifecycle_.reset();
    registry_.reset();
  }

  std::vector<std::string> build(bool lifecycle_tools, bool checkpoint_tools = true) {
    CatalogContext context;
    context.lifecycle_tools = lifecycle_tools;
    context.registry = registry_.get();
    context.lifecycle = lifecycle_.get();
    context.terminal_execute_description = "Run a command.";
    context.checkpoint_tools = checkpoint_tools;
    catalog_ = make_tool_catalog(context);
    std::vector<std::string> names;
    for (const auto& tool : catalog_) names.push_back(tool->definition().name);
    return names;
  }

  mcp::Tool& tool(const std::string& name) {
    for (const auto& entry : catalog_) {
      if (entry->definition().name == name) return *entry;
    }
    throw std::out_of_range("no tool " + name);
  }

  std::shared_ptr<RecordingCall> call(const std::string& name, Json arguments,
                                      bool elicitation = false) {
    auto recording = std::make_shared<RecordingCall>(std::move(arguments), elicitation);
    tool(name).call(recording);
    return recording;
  }

  std::unique_ptr<computers::ComputerRegistry> registry_;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle_;
  std::vector<std::unique_ptr<mcp::Tool>> catalog_;
};

const std::vector<std::string> kCheckpointTools = {"checkpoint_create", "checkpoint_list",
                                                   "checkpoint_restore", "checkpoint_delete"};

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST_F(CheckpointToolsTest, OfferedByDefaultAfterTheFileToolsWhenTheBackendKeepsCheckpoints) {
  const auto names = build(false);
  ASSERT_EQ(names.size(), 13U);
  EXPECT_EQ(names[8], "edit_file");
  EXPECT_EQ(std::vector<std::string>(names.begin() + 9, names.end()), kCheckpointTools);
  for (const auto& name : kCheckpointTools) {
    EXPECT_FALSE(tool(name).definition().input_schema["properties"].contains("computer_id"))
        << name << ": the model has one computer";
  }
  EXPECT_FALSE(contains(names, "computer_fork"));
}

TEST_F(CheckpointToolsTest, HiddenByTheFlagAndWithoutTheExtension) {
  for (const auto& name : build(false, /*checkpoint_tools=*/false)) {
    EXPECT_EQ(name.rfind("checkpoint_", 0), std::string::npos) << name;
  }
  backend_->set_checkpoints(false);
  const auto without_extension = build(true);
  for (const auto& name : without_extension) {
    EXPECT_EQ(name.rfind("checkpoint_", 0), std::string::npos) << name;
  }
  EXPECT_FALSE(contains(without_extension, "computer_fork"));
  EXPECT_EQ(without_extension.back(), "computer_delete");
}

TEST_F(CheckpointToolsTest, LifecycleToolsAddComputerIdAndComputerFork) {
  const auto names = build(true);
  EXPECT_EQ(names.back(), "computer_fork");
  for (const auto& name : kCheckpointTools) {
    const Json& schema = tool(name).definition().input_schema;
    EXPECT_TRUE(schema["properties"].contains("computer_id")) << name;
    EXPECT_FALSE(schema.contains("required") &&
                 std::find(schema["required"].begin(), schema["required"].end(), "computer_id") !=
                     schema["required"].end())
        << name << ": computer_id stays optional";
  }
  // computer_fork stays with the lifecycle tools when the model's checkpoint tools are off.
  const auto without_model_tools = build(true, false);
  EXPECT_EQ(without_model_tools.back(), "computer_fork");
  EXPECT_FALSE(contains(without_model_tools, "checkpoint_create"));
}

TEST_F(CheckpointToolsTest, DefinitionsSayWhatTheToolsDo) {
  build(true);
  const auto& restore = tool("checkpoint_restore").definition();
  EXPECT_EQ(restore.annotations.at("destructiveHint"), true);
  EXPECT_EQ(restore.task_support, mcp::TaskSupport::optional);
  EXPECT_NE(restore.description.find("Only files come back"), std::string::npos);
  const auto& create = tool("checkpoint_create").definition();
  EXPECT_NE(create.description.find("before a risky change"), std::string::npos);
  EXPECT_NE(create.description.find("1-63 letters, digits"), std::string::npos);
  EXPECT_EQ(create.input_schema["properties"]["name"]["maxLength"], 63);
  EXPECT_EQ(create.input_schema["required"], Json::array({"name"}));
  EXPECT_EQ(tool("checkpoint_list").definition().annotations.at("readOnlyHint"), true);
  EXPECT_EQ(tool("computer_fork").definition().task_support, mcp::TaskSupport::optional);
  EXPECT_EQ(tool("computer_fork").definition().input_schema["required"],
            Json::array({"computer_id"}));
}

TEST_F(CheckpointToolsTest, ABadNameIsAnErrorBeforeAnythingStarts) {
  build(true);
  for (const auto& name : kCheckpointTools) {
    if (name == "checkpoint_list") continue;
    for (const Json& bad : {Json("two words"), Json("-dash"), Json(std::string(64, 'a')), Json(7)}) {
      auto refused = call(name, Json{{"name", bad}});
      ASSERT_EQ(refused->results.size(), 1U) << name << " " << bad;
      EXPECT_TRUE(refused->results[0].is_error);
      const std::string error = refused->payload().at("error").get<std::string>();
      EXPECT_NE(error.find("1-63 letters, digits, '.', '_' or '-'"), std::string::npos) << error;
    }
    auto missing = call(name, Json::object());
    ASSERT_EQ(missing->results.size(), 1U);
    EXPECT_EQ(missing->payload().at("error"),
              "A checkpoint name is required. Names are 1-63 letters, digits, '.', '_' or '-', "
              "starting with a letter or digit (for example \"before-upgrade\").");
  }
  auto bad_fork = call("computer_fork", Json{{"computer_id", "box"}, {"checkpoint", "a b"}});
  ASSERT_EQ(bad_fork->results.size(), 1U);
  EXPECT_TRUE(bad_fork->results[0].is_error);
  run();
  EXPECT_TRUE(backend_->all_started().empty()) << "not even the computer was acquired";
}

TEST_F(CheckpointToolsTest, CreateActsOnTheServersComputerAndReportsTheCheckpoint) {
  build(false);
  backend_->script(Operation::create_checkpoint,
                   FakeReply::ok(Json{{"checkpoint", checkpoint_document("before-upgrade", "test-computer")},
                                      {"computer", fake_computer_info()}}));
  auto created = call("checkpoint_create", Json{{"name", "before-upgrade"}, {"computer_id", "other"}});
  run();
  ASSERT_EQ(created->results.size(), 1U);
  ASSERT_FALSE(created->results[0].is_error) << created->payload().dump();
  EXPECT_EQ(backend_->started(Operation::create_checkpoint).at(0)->request,
            (Json{{"computer_id", "test-computer"}, {"name", "before-upgrade"}}))
      << "without --lifecycle-tools a computer_id argument names nothing";
  EXPECT_EQ(created->payload(), (Json{{"ok", true},
                                      {"computer_id", "test-computer"},
                                      {"sandbox_id", test_support::kFakeSandboxId},
                                      {"temporary", false},
                                      {"checkpoint", checkpoint_document("before-upgrade",
                                                                         "test-computer")}}));
}

TEST_F(CheckpointToolsTest, ListAndDeleteNameTheComputer) {
  build(true);
  backend_->script(Operation::list_checkpoints,
                   FakeReply::ok(Json{{"computer_id", "box"},
                                      {"checkpoints", Json::array({checkpoint_document("v1", "box")})}}));
  auto listed = call("checkpoint_list", Json{{"computer_id", "box"}});
  run();
  ASSERT_EQ(listed->results.size(), 1U);
  EXPECT_EQ(listed->payload(), (Json{{"computer_id", "box"},
                                     {"checkpoints", Json::array({checkpoint_document("v1", "box")})},
                                     {"count", 1}}));
  EXPECT_EQ(backend_->count(Operation::create), 0U) << "a named computer is not acquired";

  backend_->script(Operation::delete_checkpoint, FakeReply::fail(VC_E_NOT_FOUND,
                                                                 "No checkpoint 'v2' of computer 'box'."));
  auto missing = call("checkpoint_delete", Json{{"computer_id", "box"}, {"name", "v2"}});
  run();
  ASSERT_EQ(missing->results.size(), 1U);
  EXPECT_TRUE(missing->results[0].is_error);
  EXPECT_EQ(missing->payload(), (Json{{"error", "No checkpoint 'v2' of computer 'box'."}}));

  backend_->script(Operation::delete_checkpoint,
                   FakeReply::ok(Json{{"computer_id", "box"}, {"name", "v1"}, {"deleted", true}}));
  auto deleted = call("checkpoint_delete", Json{{"computer_id", "box"}, {"name", "v1"}});
  run();
  EXPECT_EQ(deleted->payload(),
            (Json{{"ok", true}, {"computer_id", "box"}, {"name", "v1"}, {"deleted", true}}));
}

TEST_F(CheckpointToolsTest, RestoreAsksFirstAndOnlyAYesRestores) {
  build(false);
  auto declined = call("checkpoint_restore", Json{{"name", "v1"}}, /*elicitation=*/true);
  ASSERT_EQ(declined->asked.size(), 1U);
  const std::string question = declined->asked[0]["params"]["message"].get<std::string>();
  EXPECT_NE(question.find("Restore computer test-computer to checkpoint 'v1'?"), std::string::npos)
      << question;
  declined->answer_once(Json{{"action", "decline"}});
  run();
  ASSERT_EQ(declined->results.size(), 1U);
  EXPECT_EQ(declined->payload()["ok"], false);
  EXPECT_EQ(backend_->count(Operation::restore_checkpoint), 0U);

  backend_->script(Operation::restore_checkpoint,
                   FakeReply::ok(Json{{"checkpoint", checkpoint_document("v1", "test-computer")},
                                      {"computer", fake_computer_info()}},
                                 {{VC_STREAM_PROGRESS, R"({"progress":1,"message":"Restoring files"})"}}));
  auto agreed = call("checkpoint_restore", Json{{"name", "v1"}}, /*elicitation=*/true);
  agreed->answer_once(Json{{"action", "accept"}, {"content", {{"confirm", true}}}});
  run();
  ASSERT_EQ(agreed->results.size(), 1U);
  EXPECT_FALSE(agreed->results[0].is_error) << agreed->payload().dump();
  EXPECT_EQ(agreed->payload()["checkpoint"]["name"], "v1");
  EXPECT_EQ(agreed->task_status, "Restoring computer test-computer to checkpoint v1");
  EXPECT_EQ(agreed->progress, std::vector<std::string>{"Restoring files"});
  EXPECT_EQ(backend_->started(Operation::restore_checkpoint).at(0)->request,
            (Json{{"computer_id", "test-computer"}, {"name", "v1"}}));
}

TEST_F(CheckpointToolsTest, ForkGeneratesTheNewIdWhenNoneIsGiven) {
  build(true);
  backend_->script(Operation::fork_checkpoint, FakeReply::held());
  auto forked = call("computer_fork", Json{{"computer_id", "box"}, {"checkpoint", "v1"}});
  run();
  ASSERT_EQ(backend_->count(Operation::fork_checkpoint), 1U);
  auto op = backend_->started(Operation::fork_checkpoint).at(0);
  const std::string new_id = op->request.at("new_computer_id").get<std::string>();
  EXPECT_TRUE(std::regex_match(new_id, std::regex("computer-[0-9a-f]{8}"))) << new_id;
  EXPECT_EQ(op->request.at("computer_id"), "box");
  EXPECT_EQ(op->request.at("name"), "v1");
  backend_->resolve(op, FakeReply::ok(Json{{"checkpoint", checkpoint_document("v1", "box")},
                                           {"computer", fake_computer_info(new_id)}}));
  run();
  ASSERT_EQ(forked->results.size(), 1U);
  EXPECT_EQ(forked->payload()["computer_id"], new_id);
  EXPECT_EQ(forked->payload()["forked_from"], "box");
  EXPECT_EQ(forked->payload()["checkpoint"]["name"], "v1");
}

}  // namespace
}  // namespace vc::tools
