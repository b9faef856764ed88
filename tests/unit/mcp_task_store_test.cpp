// The task store on its own: a call it adopts reports to it, ends as completed, failed or
// cancelled, waits for answers a few at a time and runs again with them, expires after its
// ttl once idle (never while working), and the store stays bounded.
#include "mcp/task_store.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "mcp_session_doubles.h"

namespace vc::mcp {
namespace {

using doubles::HeldCallsTool;
using namespace std::chrono_literals;

// The owner a call starts with, before the store adopts it; a call must never come back here.
class FirstOwner final : public ToolCallOwner {
 public:
  void send(const Json& /*message*/, const Json& /*related*/) override { ++messages; }
  bool log_enabled(LogLevel /*level*/) const override { return true; }
  void call_finished(SessionToolCall& /*call*/, ToolResult /*result*/) override { ++finished; }
  bool client_supports(const std::string& /*capability*/) const override { return true; }
  void send_client_request(const std::string& /*method*/, Json /*params*/, const Json& /*related*/,
                           std::function<void(Expected<Json>)> /*done*/) override {}
  bool take_as_task(SessionToolCall& /*call*/, const std::string& /*message*/) override {
    return false;
  }
  int messages = 0;
  int finished = 0;
};

class TaskStoreTest : public ::testing::Test {
 protected:
  TaskStoreTest() {
    TaskStoreOptions options;
    options.ttl = 60s;
    options.max_tasks = 3;
    options.now = [this] { return now_; };
    store_ = std::make_unique<TaskStore>(options);
  }

  // A 2026 call of `tool_`, adopted by the store; returns the task's id.
  std::string adopt(Json arguments = Json::object()) {
    RequestContext context;
    context.stateless = true;
    context.envelope.client_capabilities = Json{{"elicitation", Json::object()}};
    auto call = std::make_shared<SessionToolCall>(first_owner_, Json(next_id_++), "held",
                                                  std::move(arguments), "progress-token", 7,
                                                  context);
    calls_.push_back(call);
    auto created = store_->adopt(call, tool_, "starting", [this](const std::string& tool,
                                                                 const Json&, const Json& result) {
      results_.push_back(Json{{"tool", tool}, {"result", result}});
    });
    if (!created) return "";
    return (*created)["taskId"].get<std::string>();
  }
  Json get(const std::string& id) { return store_->detailed(id).value_or(Json()); }

  std::chrono::system_clock::time_point now_ =
      std::chrono::system_clock::time_point(std::chrono::milliseconds(1'796'650'000'123));
  FirstOwner first_owner_;
  HeldCallsTool tool_{"held"};
  std::vector<std::shared_ptr<SessionToolCall>> calls_;
  std::vector<Json> results_;
  std::unique_ptr<TaskStore> store_;
  int next_id_ = 1;
};

TEST_F(TaskStoreTest, AnAdoptedCallCompletesItsTaskNotItsFirstOwner) {
  const std::string id = adopt(Json{{"x", 1}});
  EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")))
      << id;
  Json working = get(id);
  EXPECT_EQ(working["status"], "working");
  EXPECT_EQ(working["statusMessage"], "starting");
  EXPECT_EQ(working["createdAt"], "2026-12-07T13:26:40.123Z");
  EXPECT_EQ(working["ttlMs"], 60'000);
  EXPECT_EQ(working["pollIntervalMs"], 1'000);
  EXPECT_FALSE(working.contains("result"));

  calls_[0]->report_progress(1, 2, "halfway there");
  EXPECT_EQ(get(id)["statusMessage"], "halfway there");
  EXPECT_FALSE(calls_[0]->client_supports("sampling"));
  EXPECT_TRUE(calls_[0]->client_supports("elicitation"));
  calls_[0]->log(LogLevel::emergency, "a task sends no log messages");

  now_ += 5s;
  calls_[0]->finish(ToolResult::from_payload(Json{{"ok", true}}, false));
  const Json done = get(id);
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["lastUpdatedAt"], "2026-12-07T13:26:45.123Z");
  EXPECT_EQ(done["result"]["structuredContent"], (Json{{"ok", true}}));
  EXPECT_EQ(done["result"]["isError"], false);
  EXPECT_EQ(first_owner_.finished, 0);
  EXPECT_EQ(first_owner_.messages, 0) << "no progress or log notification from a task";
  ASSERT_EQ(results_.size(), 1u);
  EXPECT_EQ(results_[0]["tool"], "held");
}

TEST_F(TaskStoreTest, AToolErrorCompletesAndAProtocolErrorFails) {
  const std::string tool_error = adopt();
  const std::string protocol_error = adopt();
  calls_[0]->finish(ToolResult::error_text("no such file"));
  calls_[1]->finish(ToolResult::failed(-32603, "Internal error: crashed"));
  EXPECT_EQ(get(tool_error)["status"], "completed");
  EXPECT_EQ(get(tool_error)["result"]["isError"], true);
  const Json failed = get(protocol_error);
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"], (Json{{"code", -32603}, {"message", "Internal error: crashed"}}));
  EXPECT_FALSE(failed.contains("result"));
}

TEST_F(TaskStoreTest, CancelStopsTheCallAndSettlesAtOnce) {
  const std::string id = adopt();
  bool stopped = false;
  calls_[0]->on_cancel([&stopped] { stopped = true; });
  EXPECT_TRUE(store_->cancel(id));
  EXPECT_TRUE(stopped);
  EXPECT_EQ(get(id)["status"], "cancelled");
  calls_[0]->finish(ToolResult::from_payload(Json::object(), false));
  EXPECT_EQ(get(id)["status"], "cancelled") << "a late result does not revive the task";
  EXPECT_TRUE(store_->cancel(id)) << "cancelling an ended task is acknowledged";
  EXPECT_FALSE(store_->cancel("no-such-task"));
  EXPECT_TRUE(results_.empty());
}

TEST_F(TaskStoreTest, QuestionsAreAnsweredAFewAtATimeThenTheToolRunsAgain) {
  const std::string id = adopt(Json{{"file", "a.txt"}});
  calls_[0]->finish(ToolResult::input_required(
      Json{{"name", {{"method", "elicitation/create"}}}, {"confirm", {{"method", "elicitation/create"}}}},
      Json{{"round", 1}}));
  Json waiting = get(id);
  EXPECT_EQ(waiting["status"], "input_required");
  EXPECT_EQ(waiting["inputRequests"].size(), 2u);

  EXPECT_TRUE(store_->update(id, Json{{"name", {{"action", "accept"}}}, {"stranger", {{"x", 1}}}}));
  waiting = get(id);
  EXPECT_EQ(waiting["status"], "input_required");
  EXPECT_EQ(waiting["inputRequests"].size(), 1u);
  EXPECT_TRUE(waiting["inputRequests"].contains("confirm"));
  ASSERT_EQ(tool_.calls.size(), 0u) << "not called again before every answer is in";

  EXPECT_TRUE(store_->update(id, Json{{"confirm", {{"action", "accept"}}}}));
  EXPECT_EQ(get(id)["status"], "working");
  ASSERT_EQ(tool_.calls.size(), 1u);
  auto& again = *tool_.calls[0];
  EXPECT_TRUE(again.is_task());
  EXPECT_TRUE(again.become_task("still a task")) << "already one: nothing changes";
  EXPECT_EQ(again.arguments(), (Json{{"file", "a.txt"}}));
  EXPECT_EQ(again.request_state(), (Json{{"round", 1}}));
  EXPECT_EQ(again.input_responses().size(), 2u);
  again.finish(ToolResult::from_payload(Json{{"done", true}}, false));
  EXPECT_EQ(get(id)["status"], "completed");
  EXPECT_FALSE(get(id).contains("inputRequests"));
}

TEST_F(TaskStoreTest, IdleTasksExpireAfterTheirTtlWorkingOnesNever) {
  const std::string working = adopt();
  const std::string ended = adopt();
  calls_[1]->finish(ToolResult::from_payload(Json::object(), false));
  now_ += 59s;
  EXPECT_FALSE(get(ended).is_null()) << "kept for its whole ttl";
  now_ += 2s;
  EXPECT_TRUE(get(ended).is_null());
  EXPECT_FALSE(get(working).is_null());
  now_ += 24h;
  EXPECT_EQ(get(working)["status"], "working");
}

TEST_F(TaskStoreTest, AFullStorePushesOutTheOldestEndedTaskOrRefuses) {
  const std::string first = adopt();
  adopt();
  adopt();
  EXPECT_EQ(adopt(), "") << "three working tasks fill the store";
  calls_[0]->finish(ToolResult::from_payload(Json::object(), false));
  const std::string fourth = adopt();
  EXPECT_NE(fourth, "");
  EXPECT_TRUE(get(first).is_null()) << "the ended task made room";
  EXPECT_EQ(store_->size(), 3u);
}

TEST(TaskStorePrefix, IdsStartWithTheProcessPrefix) {
  TaskStoreOptions options;
  options.id_prefix = "node2";
  TaskStore store(options);
  FirstOwner owner;
  HeldCallsTool tool("held");
  auto call = std::make_shared<SessionToolCall>(owner, Json(1), "held", Json::object(), Json(), 1);
  const auto created = store.adopt(call, tool, "", nullptr);
  ASSERT_TRUE(created);
  const std::string id = (*created)["taskId"].get<std::string>();
  EXPECT_EQ(id.rfind("node2-", 0), 0u) << id;
  EXPECT_EQ(id.size(), 6u + 36u);
  EXPECT_TRUE(store.detailed(id));
}

TEST_F(TaskStoreTest, ObserversSeeEveryChangeAndMayLeaveWhileTold) {
  const std::string id = adopt();
  std::vector<std::string> seen;
  uint64_t watch = 0;
  watch = store_->watch([&](const Json& task) {
    seen.push_back(task["status"].get<std::string>());
    if (task["status"] == "completed") store_->unwatch(watch);
  });
  calls_[0]->report_progress(1, std::nullopt, "step one");
  calls_[0]->finish(ToolResult::from_payload(Json::object(), false));
  store_->cancel(id);
  EXPECT_EQ(seen, (std::vector<std::string>{"working", "completed"}));
}

TEST_F(TaskStoreTest, DestroyingTheStoreCancelsWhatStillWorks) {
  adopt();
  bool stopped = false;
  calls_[0]->on_cancel([&stopped] { stopped = true; });
  store_.reset();
  EXPECT_TRUE(stopped);
}

}  // namespace
}  // namespace vc::mcp
