// mcp_activity_feed_test.cpp — the activity feed: what it publishes, its ring, the bound on
// strings, and the waits behind read_activity (answered on a later loop turn, by the next
// event, or at the deadline; a cancelled wait is never answered).
#include <gtest/gtest.h>
#include <uv.h>

#include <optional>
#include <string>

#include "mcp/activity_feed.h"

namespace vc::mcp {
namespace {

Json command_result(const std::string& stdout_text) {
  return Json{{"content", Json::array()},
              {"structuredContent", {{"stdout", stdout_text}, {"exit_code", 0}}},
              {"isError", false}};
}

class ActivityFeedTest : public ::testing::Test {
 protected:
  void SetUp() override { uv_loop_init(&loop_); }
  void TearDown() override {
    feed_.reset();
    uv_run(&loop_, UV_RUN_DEFAULT);  // the waiters' timers close
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }
  void run_once() { uv_run(&loop_, UV_RUN_NOWAIT); }

  uv_loop_t loop_;
  std::optional<ActivityFeed> feed_{std::in_place, &loop_};
};

TEST_F(ActivityFeedTest, PublishesTheComputersToolsAndNothingElse) {
  for (const char* tool : {"terminal_execute", "read_file", "write_file", "edit_file",
                           "list_directory", "set_network_access", "set_desktop_environment"}) {
    EXPECT_TRUE(ActivityFeed::publishes(tool)) << tool;
  }
  for (const char* tool : {"runtime_status", "computer_ui", "read_activity", "look_at_screen"}) {
    EXPECT_FALSE(ActivityFeed::publishes(tool)) << tool;
  }
  feed_->record_request("runtime_status", Json::object());
  EXPECT_EQ(feed_->revision(), 0);
}

TEST_F(ActivityFeedTest, PairsRequestsAndResultsWithRevisionsAndKeepsTheLast64) {
  feed_->record_request("terminal_execute", {{"command", "echo hi"}});
  feed_->record_result("terminal_execute", {{"command", "echo hi"}}, command_result("hi\n"));
  const Json feed = feed_->since(0);
  ASSERT_EQ(feed["events"].size(), 2u);
  EXPECT_EQ(feed["revision"], 2);
  EXPECT_EQ(feed["events"][0]["phase"], "request");
  EXPECT_TRUE(feed["events"][0]["payload"].is_null());
  EXPECT_EQ(feed["events"][1]["payload"]["stdout"], "hi\n");
  EXPECT_EQ(feed_->since(1)["events"].size(), 1u);

  for (int i = 0; i < 100; ++i) feed_->record_request("read_file", {{"path", std::to_string(i)}});
  const Json ring = feed_->since(0);
  ASSERT_EQ(ring["events"].size(), ActivityFeed::kCapacity);
  EXPECT_EQ(ring["events"][0]["revision"], 102 - 64 + 1);
  EXPECT_EQ(ring["revision"], 102);
}

TEST_F(ActivityFeedTest, AnErrorWithTextOnlyStillSaysWhy) {
  feed_->record_result("read_file", {{"path", 5}},
                       Json{{"content", Json::array({{{"type", "text"}, {"text", "Input validation error"}}})},
                            {"isError", true}});
  EXPECT_EQ(feed_->since(0)["events"][0]["payload"]["error"], "Input validation error");
}

TEST_F(ActivityFeedTest, LongStringsAreCutAtACharacterBoundary) {
  // "é" is two bytes: a cut at the byte limit would split one.
  std::string output = "x";
  while (output.size() < ActivityFeed::kMaxStringBytes + 1000) output += "é";
  feed_->record_result("terminal_execute", {{"command", "yes"}}, command_result(output));
  const std::string kept = feed_->since(0)["events"][0]["payload"]["stdout"];
  const std::string note = "more bytes not shown]";
  ASSERT_NE(kept.find(note), std::string::npos);
  const std::string prefix = kept.substr(0, kept.find("\n[… "));
  EXPECT_LE(prefix.size(), ActivityFeed::kMaxStringBytes);
  EXPECT_EQ(output.compare(0, prefix.size(), prefix), 0);
  EXPECT_NO_THROW((void)Json(kept).dump());  // still valid UTF-8
}

TEST_F(ActivityFeedTest, AWaitWithNewerEventsAnswersOnTheNextTurnNotInside) {
  feed_->record_request("write_file", {{"path", "a"}});
  std::optional<Json> answer;
  feed_->wait(0, 20'000, [&](Json result) { answer = std::move(result); });
  EXPECT_FALSE(answer.has_value()) << "answered from inside wait()";
  run_once();
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ((*answer)["events"].size(), 1u);
}

TEST_F(ActivityFeedTest, AWaitIsAnsweredByTheNextEvent) {
  std::optional<Json> answer;
  feed_->wait(0, 20'000, [&](Json result) { answer = std::move(result); });
  run_once();
  EXPECT_FALSE(answer.has_value());
  feed_->record_request("edit_file", {{"path", "b"}});
  EXPECT_FALSE(answer.has_value()) << "answered from inside the event's own call";
  const uint64_t before = uv_now(&loop_);
  while (!answer) uv_run(&loop_, UV_RUN_ONCE);
  EXPECT_LT(uv_now(&loop_) - before, 1000u) << "waited for the deadline instead";
  EXPECT_EQ((*answer)["events"][0]["operation"], "edit_file");
}

TEST_F(ActivityFeedTest, AWaitEndsEmptyAtItsDeadline) {
  std::optional<Json> answer;
  feed_->wait(0, 30, [&](Json result) { answer = std::move(result); });
  while (!answer) uv_run(&loop_, UV_RUN_ONCE);
  EXPECT_TRUE((*answer)["events"].empty());
  EXPECT_EQ((*answer)["revision"], 0);
}

TEST_F(ActivityFeedTest, ACancelledWaitIsNeverAnswered) {
  int answers = 0;
  const auto id = feed_->wait(0, 10, [&](Json) { ++answers; });
  feed_->cancel(id);
  feed_->cancel(id);      // twice: ignored
  feed_->cancel(id + 7);  // unknown: ignored
  feed_->record_request("read_file", {{"path", "c"}});
  uv_run(&loop_, UV_RUN_DEFAULT);
  EXPECT_EQ(answers, 0);
}

TEST_F(ActivityFeedTest, WithoutALoopAWaitAnswersAtOnce) {
  ActivityFeed bare;
  bare.record_request("read_file", {{"path", "d"}});
  std::optional<Json> answer;
  bare.wait(0, 20'000, [&](Json result) { answer = std::move(result); });
  ASSERT_TRUE(answer.has_value());
  EXPECT_EQ((*answer)["events"].size(), 1u);
}

}  // namespace
}  // namespace vc::mcp
