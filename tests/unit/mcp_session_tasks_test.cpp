// The tasks extension in the session: a 2026 request that declared it gets a task when its
// tool goes on as one, any later request (another session of the process) reads, answers,
// cancels and listens to it; a request that did not declare it is served as before or
// refused with -32021; a 2025 session never sees a task.
#include "mcp/session.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mcp/protocol_era.h"
#include "mcp/task_store.h"
#include "mcp_session_doubles.h"

namespace vc::mcp {
namespace {

using doubles::HeldCallsTool;

Json envelope(bool with_tasks) {
  Json capabilities = Json::object();
  if (with_tasks) capabilities["extensions"] = {{kTasksExtension, Json::object()}};
  return Json{{envelope_keys::kProtocolVersion, kStatelessProtocolVersion},
              {envelope_keys::kClientCapabilities, std::move(capabilities)}};
}

class SessionTasksTest : public ::testing::Test {
 protected:
  SessionTasksTest() {
    long_.set_task_support(TaskSupport::optional);
    only_task_.set_task_support(TaskSupport::required);
    first_ = make_session(first_sent_);
    second_ = make_session(second_sent_);
  }

  std::unique_ptr<Session> make_session(std::vector<Json>& sent) {
    SessionOptions options;
    options.tasks = &store_;
    return std::make_unique<Session>(std::vector<Tool*>{&long_, &quick_, &only_task_}, options,
                                     [&sent](const Json& message, const Json&) {
                                       sent.push_back(message);
                                     });
  }

  // A 2026 request to `session`; returns the last message it sent.
  Json ask(Session& session, std::vector<Json>& sent, const Json& id, const std::string& method,
           Json params, bool with_tasks = true) {
    sent.clear();
    params["_meta"] = envelope(with_tasks);
    session.receive(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}});
    return sent.empty() ? Json() : sent.back();
  }
  Json ask_first(const Json& id, const std::string& method, Json params, bool with_tasks = true) {
    return ask(*first_, first_sent_, id, method, std::move(params), with_tasks);
  }
  Json ask_second(const Json& id, const std::string& method, Json params, bool with_tasks = true) {
    return ask(*second_, second_sent_, id, method, std::move(params), with_tasks);
  }
  // Calls the long tool, which goes on as a task; returns the request's answer.
  Json start_task(bool with_tasks = true) {
    ask_first(1, "tools/call", Json{{"name", "long"}, {"arguments", Json::object()}}, with_tasks);
    EXPECT_FALSE(long_.calls.empty());
    if (long_.calls.empty()) return Json();
    became_task_ = long_.calls.back()->become_task("working hard");
    return first_sent_.empty() ? Json() : first_sent_.back();
  }

  TaskStore store_;
  HeldCallsTool long_{"long"};
  HeldCallsTool quick_{"quick"};
  HeldCallsTool only_task_{"only_task"};
  std::vector<Json> first_sent_;
  std::vector<Json> second_sent_;
  std::unique_ptr<Session> first_;
  std::unique_ptr<Session> second_;
  bool became_task_ = false;
};

TEST_F(SessionTasksTest, DiscoverOffersTheExtensionAndInitializeDoesNot) {
  const Json discovered = ask_first("d", "server/discover", Json::object(), false);
  EXPECT_TRUE(discovered["result"]["capabilities"]["extensions"].contains(kTasksExtension));
  EXPECT_FALSE(discovered["result"]["capabilities"].contains("tasks")) << "no v1 slot";
  first_sent_.clear();
  first_->receive(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                       {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()}}}});
  ASSERT_EQ(first_sent_.size(), 1u);
  const Json& capabilities = first_sent_[0]["result"]["capabilities"];
  EXPECT_FALSE(capabilities.contains("extensions") &&
               capabilities["extensions"].contains(kTasksExtension));
}

TEST_F(SessionTasksTest, ACallThatGoesOnAsATaskIsAnsweredAtOnceAndReadFromAnotherSession) {
  const Json created = start_task();
  EXPECT_TRUE(became_task_);
  ASSERT_EQ(created["id"], 1);
  const Json& task = created["result"];
  EXPECT_EQ(task["resultType"], "task");
  EXPECT_EQ(task["status"], "working");
  EXPECT_EQ(task["statusMessage"], "working hard");
  for (const char* absent : {"result", "error", "inputRequests", "requestState", "task", "ttl"}) {
    EXPECT_FALSE(task.contains(absent)) << absent;
  }
  EXPECT_EQ(first_->calls_in_flight(), 0u) << "the store holds the call now";
  const std::string id = task["taskId"].get<std::string>();

  first_.reset();  // the request's session ends (as an HTTP request's does); the task does not
  const Json working = ask_second(2, "tasks/get", Json{{"taskId", id}});
  EXPECT_EQ(working["result"]["resultType"], "complete");
  EXPECT_EQ(working["result"]["status"], "working");

  long_.calls[0]->finish(ToolResult::from_payload(Json{{"exit_code", 0}}, false));
  const Json done = ask_second(3, "tasks/get", Json{{"taskId", id}})["result"];
  EXPECT_EQ(done["status"], "completed");
  EXPECT_EQ(done["result"]["structuredContent"], (Json{{"exit_code", 0}}));
  EXPECT_TRUE(second_sent_.size() == 1u) << "the result went to the task, not to a request";
}

TEST_F(SessionTasksTest, WithoutTheExtensionTheCallStaysARequestAndTheTaskMethodsAreRefused) {
  const Json answered = start_task(/*with_tasks=*/false);
  EXPECT_FALSE(became_task_);
  EXPECT_TRUE(answered.is_null()) << "nothing is sent until the call finishes";
  long_.calls[0]->finish(ToolResult::from_payload(Json{{"ok", true}}, false));
  EXPECT_EQ(first_sent_.back()["result"]["structuredContent"], (Json{{"ok", true}}));

  for (const char* method : {"tasks/get", "tasks/update", "tasks/cancel"}) {
    const Json refused =
        ask_first(4, method, Json{{"taskId", "x"}, {"inputResponses", Json::object()}}, false);
    EXPECT_EQ(refused["error"]["code"], -32021) << method;
    EXPECT_TRUE(refused["error"]["data"]["requiredCapabilities"]["extensions"].contains(kTasksExtension));
  }
  const Json listen = ask_first(5, "subscriptions/listen",
                                Json{{"notifications", {{"taskIds", Json::array({"x"})}}}}, false);
  EXPECT_EQ(listen["error"]["code"], -32021);
}

TEST_F(SessionTasksTest, AToolThatOnlyRunsAsATaskIsRefusedBeforeItRuns) {
  const Json refused = ask_first(1, "tools/call", Json{{"name", "only_task"}, {"arguments", Json::object()}},
                                 false);
  EXPECT_EQ(refused["error"]["code"], -32021);
  EXPECT_TRUE(only_task_.calls.empty());
  first_sent_.clear();
  first_->receive(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                       {"params", {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()}}}});
  first_sent_.clear();
  first_->receive(Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                       {"params", {{"name", "only_task"}, {"arguments", Json::object()}}}});
  ASSERT_EQ(first_sent_.size(), 1u);
  EXPECT_EQ(first_sent_[0]["error"]["code"], -32021) << "a 2025 session cannot take tasks";
  EXPECT_TRUE(only_task_.calls.empty());
}

TEST_F(SessionTasksTest, AToolThatForbidsTasksStaysARequestEvenWhenTheClientTakesThem) {
  ask_first(1, "tools/call", Json{{"name", "quick"}, {"arguments", Json::object()}, {"task", {{"ttl", 1}}}});
  ASSERT_EQ(quick_.calls.size(), 1u);
  EXPECT_FALSE(quick_.calls[0]->become_task("no"));
  EXPECT_TRUE(first_sent_.empty());
}

TEST_F(SessionTasksTest, CancelIsAnEmptyAckAndStopsTheWork) {
  const std::string id = start_task()["result"]["taskId"].get<std::string>();
  bool stopped = false;
  long_.calls[0]->on_cancel([&stopped] { stopped = true; });
  const Json ack = ask_second(2, "tasks/cancel", Json{{"taskId", id}})["result"];
  EXPECT_EQ(ack["resultType"], "complete");
  for (const char* absent : {"taskId", "status", "result", "error", "inputRequests"}) {
    EXPECT_FALSE(ack.contains(absent)) << absent;
  }
  EXPECT_TRUE(stopped);
  EXPECT_EQ(ask_second(3, "tasks/get", Json{{"taskId", id}})["result"]["status"], "cancelled");
  EXPECT_EQ(ask_second(4, "tasks/cancel", Json{{"taskId", id}})["result"]["resultType"], "complete");
}

TEST_F(SessionTasksTest, UnknownIdsAndBadParamsAreInvalidParams) {
  for (const char* method : {"tasks/get", "tasks/update", "tasks/cancel"}) {
    const Json unknown =
        ask_first(1, method, Json{{"taskId", "nope"}, {"inputResponses", Json::object()}});
    EXPECT_EQ(unknown["error"]["code"], -32602) << method;
    EXPECT_NE(unknown["error"]["message"].get<std::string>().find("'nope'"), std::string::npos);
    EXPECT_EQ(ask_first(2, method, Json{{"taskId", 7}})["error"]["code"], -32602) << method;
  }
  const std::string id = start_task()["result"]["taskId"].get<std::string>();
  EXPECT_EQ(ask_first(3, "tasks/update", Json{{"taskId", id}, {"inputResponses", "yes"}})["error"]["code"],
            -32602);
  EXPECT_EQ(ask_first(4, "tasks/result", Json{{"taskId", id}})["error"]["code"], -32601);
}

TEST_F(SessionTasksTest, AnsweringATaskRunsTheToolAgainAsATask) {
  const std::string id = start_task()["result"]["taskId"].get<std::string>();
  long_.calls[0]->finish(ToolResult::input_required(
      Json{{"confirm", {{"method", "elicitation/create"}, {"params", {{"message", "Sure?"}}}}}}));
  const Json waiting = ask_second(2, "tasks/get", Json{{"taskId", id}})["result"];
  EXPECT_EQ(waiting["status"], "input_required");
  EXPECT_EQ(waiting["inputRequests"]["confirm"]["params"]["message"], "Sure?");
  EXPECT_EQ(ask_second(3, "tasks/update",
                       Json{{"taskId", id}, {"inputResponses", {{"confirm", {{"action", "accept"}}}}}})
                ["result"]["resultType"],
            "complete");
  ASSERT_EQ(long_.calls.size(), 2u);
  EXPECT_TRUE(long_.calls[1]->is_task());
  EXPECT_EQ(long_.calls[1]->input_responses()["confirm"]["action"], "accept");
  long_.calls[1]->finish(ToolResult::from_payload(Json{{"done", true}}, false));
  EXPECT_EQ(ask_second(4, "tasks/get", Json{{"taskId", id}})["result"]["status"], "completed");
}

TEST_F(SessionTasksTest, AListenFollowsTheTasksItNamesUntilTheyEnd) {
  const std::string id = start_task()["result"]["taskId"].get<std::string>();
  const Json ack = ask_second("L", "subscriptions/listen",
                              Json{{"notifications", {{"taskIds", Json::array({id, "unknown"})}}}});
  EXPECT_EQ(ack["method"], "notifications/subscriptions/acknowledged");
  EXPECT_EQ(ack["params"]["notifications"]["taskIds"], Json::array({id}));
  second_sent_.clear();
  long_.calls[0]->report_progress(1, std::nullopt, "half done");
  long_.calls[0]->finish(ToolResult::from_payload(Json{{"ok", true}}, false));
  ASSERT_EQ(second_sent_.size(), 2u);
  EXPECT_EQ(second_sent_[0]["method"], "notifications/tasks");
  EXPECT_EQ(second_sent_[0]["params"]["statusMessage"], "half done");
  const Json& ended = second_sent_[1]["params"];
  EXPECT_EQ(ended["taskId"], id);
  EXPECT_EQ(ended["status"], "completed");
  EXPECT_EQ(ended["result"]["structuredContent"], (Json{{"ok", true}}));
  EXPECT_EQ(ended["_meta"][envelope_keys::kSubscriptionId], "L");
  EXPECT_EQ(ask_second("M", "subscriptions/listen",
                       Json{{"notifications", {{"taskIds", "not-an-array"}}}})["error"]["code"],
            -32602);
}

TEST_F(SessionTasksTest, ATwentyTwentyFiveSessionNeverGetsATask) {
  first_->receive(Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                       {"params", {{"protocolVersion", "2025-11-25"},
                                   {"capabilities", {{"extensions", {{kTasksExtension, Json::object()}}}}}}}});
  first_sent_.clear();
  first_->receive(Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                       {"params", {{"name", "long"}, {"arguments", Json::object()}}}});
  ASSERT_EQ(long_.calls.size(), 1u);
  EXPECT_FALSE(long_.calls[0]->become_task("no"));
  EXPECT_TRUE(first_sent_.empty());
  EXPECT_EQ(store_.size(), 0u);
}

}  // namespace
}  // namespace vc::mcp
