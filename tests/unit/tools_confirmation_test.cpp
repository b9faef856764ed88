// Asking the person before a destructive tool goes ahead: not at all for a client without
// elicitation; with elicitation/create in a 2025 session; with an input-required result and a
// second round in a 2026 request. Only "accept" with confirm: true goes ahead.
#include "tools/confirmation.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace vc::tools {
namespace {

class AskingCall : public mcp::ToolCall {
 public:
  AskingCall(bool elicitation, bool stateless) : elicitation_(elicitation), stateless_(stateless) {}

  const Json& arguments() const override { return arguments_; }
  void report_progress(double, std::optional<double>, const std::string&) override {}
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
    pending = std::move(done);
  }
  void finish(mcp::ToolResult result) override { results.push_back(std::move(result)); }
  bool asks_with_input_required() const override { return stateless_; }
  const Json& input_responses() const override { return responses; }
  const Json& request_state() const override { return state; }

  std::vector<Json> asked;
  std::function<void(Expected<Json>)> pending;
  std::vector<mcp::ToolResult> results;
  Json responses;
  Json state;

 private:
  Json arguments_ = Json::object();
  bool elicitation_;
  bool stateless_;
};

// Hands the client's answer over and drops the callback (which holds the call, as the
// session's table of requests to the client does).
void answer_once(AskingCall& call, Expected<Json> answer) {
  auto done = std::move(call.pending);
  call.pending = nullptr;
  done(std::move(answer));
}

const Json kYes{{"action", "accept"}, {"content", {{"confirm", true}}}};

TEST(Confirmation, AClientThatCannotAskGoesAheadAtOnce) {
  auto call = std::make_shared<AskingCall>(false, false);
  int went = 0;
  confirm_then(call, "Delete x?", "x", [&went] { ++went; });
  EXPECT_EQ(went, 1);
  EXPECT_TRUE(call->asked.empty());
}

TEST(Confirmation, A2025SessionAsksWithElicitationAndOnlyYesGoesAhead) {
  for (const Json& answer : {kYes, Json{{"action", "decline"}},
                             Json{{"action", "accept"}, {"content", {{"confirm", false}}}},
                             Json{{"action", "cancel"}}}) {
    auto call = std::make_shared<AskingCall>(true, false);
    int went = 0;
    confirm_then(call, "Delete x?", "x", [&went] { ++went; });
    ASSERT_EQ(call->asked.size(), 1u);
    EXPECT_EQ(call->asked[0]["method"], "elicitation/create");
    EXPECT_EQ(call->asked[0]["params"]["message"], "Delete x?");
    EXPECT_EQ(call->asked[0]["params"]["requestedSchema"]["required"], Json::array({"confirm"}));
    answer_once(*call, answer);
    const bool yes = answer == kYes;
    EXPECT_EQ(went, yes ? 1 : 0) << answer.dump();
    ASSERT_EQ(call->results.size(), yes ? 0u : 1u) << answer.dump();
    if (!yes) {
      EXPECT_TRUE(call->results[0].is_error);
      EXPECT_EQ(call->results[0].structured_content["ok"], false);
    }
  }
  // A client that answers with an error is no yes either.
  auto call = std::make_shared<AskingCall>(true, false);
  int went = 0;
  confirm_then(call, "Delete x?", "x", [&went] { ++went; });
  answer_once(*call, Failure{-1, "the client answered with error -32601"});
  EXPECT_EQ(went, 0);
  EXPECT_EQ(call->results.size(), 1u);
}

TEST(Confirmation, A2026RequestAsksByItsResultAndGoesAheadOnTheSecondRound) {
  auto first = std::make_shared<AskingCall>(true, true);
  int went = 0;
  confirm_then(first, "Delete x?", "x", [&went] { ++went; });
  ASSERT_EQ(first->results.size(), 1u);
  const mcp::ToolResult& asked = first->results[0];
  ASSERT_TRUE(asked.asks_for_input());
  EXPECT_EQ(asked.input_requests["confirm"]["method"], "elicitation/create");
  EXPECT_EQ(asked.state, (Json{{"confirming", "x"}}));
  EXPECT_TRUE(first->asked.empty()) << "no request to the client in this era";

  auto second = std::make_shared<AskingCall>(true, true);
  second->state = asked.state;
  second->responses = Json{{"confirm", kYes}};
  confirm_then(second, "Delete x?", "x", [&went] { ++went; });
  EXPECT_EQ(went, 1);

  auto declined = std::make_shared<AskingCall>(true, true);
  declined->state = asked.state;
  declined->responses = Json{{"confirm", {{"action", "decline"}}}};
  confirm_then(declined, "Delete x?", "x", [&went] { ++went; });
  EXPECT_EQ(went, 1);
  ASSERT_EQ(declined->results.size(), 1u);
  EXPECT_TRUE(declined->results[0].is_error);

  // An answer without the state of this question is asked again, not taken.
  auto unasked = std::make_shared<AskingCall>(true, true);
  unasked->responses = Json{{"confirm", kYes}};
  confirm_then(unasked, "Delete y?", "y", [&went] { ++went; });
  EXPECT_EQ(went, 1);
  ASSERT_EQ(unasked->results.size(), 1u);
  EXPECT_TRUE(unasked->results[0].asks_for_input());
}

}  // namespace
}  // namespace vc::tools
