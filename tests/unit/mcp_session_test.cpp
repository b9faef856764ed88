// The MCP session with fake tools: lifecycle, tools/list, tools/call, cancellation,
// progress, logging and the JSON-RPC error paths.
#include "mcp/session.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "mcp_session_doubles.h"

namespace vc::mcp {
namespace {

using HeldTool = doubles::HeldCallsTool;

// A tool that answers at once with its arguments.
class EchoTool : public Tool {
 public:
  EchoTool() {
    definition_.name = "echo";
    definition_.description = "echoes";
    definition_.input_schema = Json::parse(R"({"type":"object","properties":{
        "text":{"type":"string"},"count":{"type":"integer","minimum":1}},
        "additionalProperties":false})");
  }
  const ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<ToolCall> call) override {
    call->finish(ToolResult::from_payload(call->arguments(), false));
  }

 private:
  ToolDefinition definition_;
};

class ThrowingTool : public Tool {
 public:
  ThrowingTool() {
    definition_.name = "boom";
    definition_.input_schema = Json{{"type", "object"}};
  }
  const ToolDefinition& definition() const override { return definition_; }
  void call(std::shared_ptr<ToolCall>) override { throw std::runtime_error("kaboom"); }

 private:
  ToolDefinition definition_;
};

class SessionTest : public ::testing::Test {
 protected:
  SessionTest() {
    SessionOptions options;
    options.server_version = "9.9.9";
    options.tools_page_size = 2;
    options.on_tool_request = [this](const std::string& tool, const Json& arguments) {
      activity_.push_back({{"phase", "request"}, {"tool", tool}, {"arguments", arguments}});
    };
    options.on_tool_result = [this](const std::string& tool, const Json& arguments,
                                    const Json& result) {
      activity_.push_back(
          {{"phase", "result"}, {"tool", tool}, {"arguments", arguments}, {"result", result}});
    };
    session_ = std::make_unique<Session>(std::vector<Tool*>{&echo_, &slow_, &boom_, &extra_},
                                         options, [this](const Json& m, const Json& related) {
                                           sent_.push_back(m);
                                           related_.push_back(related);
                                         });
  }

  void send(const Json& message) { session_->receive(message); }
  void send_line(const std::string& line) { session_->receive_line(line); }
  Json request(const Json& id, const std::string& method, Json params = nullptr) {
    Json message{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) message["params"] = std::move(params);
    return message;
  }
  // Sends a request and returns the single message it produced.
  Json ask(const Json& id, const std::string& method, Json params = nullptr) {
    sent_.clear();
    send(request(id, method, std::move(params)));
    EXPECT_EQ(sent_.size(), 1u) << method;
    return sent_.empty() ? Json() : sent_.back();
  }
  void initialize(const std::string& version = "2025-11-25") {
    ask(0, "initialize", Json{{"protocolVersion", version}, {"capabilities", Json::object()},
                              {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
    send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  }
  Json call(const Json& id, const std::string& tool, Json arguments, Json meta = nullptr) {
    Json params{{"name", tool}, {"arguments", std::move(arguments)}};
    if (!meta.is_null()) params["_meta"] = std::move(meta);
    sent_.clear();
    send(request(id, "tools/call", std::move(params)));
    return sent_.empty() ? Json() : sent_.back();
  }

  EchoTool echo_;
  HeldTool slow_{"slow"};
  ThrowingTool boom_;
  HeldTool extra_{"extra"};
  std::vector<Json> sent_;
  std::vector<Json> related_;   // the related request id of each sent message
  std::vector<Json> activity_;  // what on_tool_request / on_tool_result reported
  std::unique_ptr<Session> session_;
};

TEST_F(SessionTest, InitializeNegotiatesTheProtocolVersion) {
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    EXPECT_EQ(negotiate_protocol_version(version), version);
  }
  EXPECT_EQ(negotiate_protocol_version("2024-11-05"), "2025-11-25");
  EXPECT_EQ(negotiate_protocol_version("banana"), "2025-11-25");

  const Json reply = ask(1, "initialize", Json{{"protocolVersion", "2025-06-18"}});
  EXPECT_EQ(reply["id"], 1);
  const Json& result = reply["result"];
  EXPECT_EQ(result["protocolVersion"], "2025-06-18");
  EXPECT_EQ(result["serverInfo"], (Json{{"name", "MCP Virtual Computer"}, {"version", "9.9.9"}}));
  EXPECT_EQ(result["capabilities"],
            Json::parse(R"({"tools":{"listChanged":false},"logging":{},
                            "resources":{"subscribe":true,"listChanged":false},
                            "prompts":{"listChanged":false},"completions":{}})"));
  EXPECT_FALSE(result.contains("instructions"));
  EXPECT_TRUE(session_->initialized());
  EXPECT_EQ(session_->protocol_version(), "2025-06-18");
}

TEST_F(SessionTest, UnknownVersionGetsOurLatest) {
  const Json reply = ask(1, "initialize", Json{{"protocolVersion", "1999-01-01"}});
  EXPECT_EQ(reply["result"]["protocolVersion"], "2025-11-25");
}

TEST_F(SessionTest, InitializeNeedsAVersionAndHappensOnce) {
  EXPECT_EQ(ask(1, "initialize", Json::object())["error"]["code"], -32602);
  EXPECT_EQ(ask(2, "initialize", Json{{"protocolVersion", 5}})["error"]["code"], -32602);
  initialize();
  EXPECT_EQ(ask(3, "initialize", Json{{"protocolVersion", "2025-11-25"}})["error"]["code"], -32600);
}

TEST_F(SessionTest, OnlyPingBeforeInitialize) {
  EXPECT_EQ(ask(1, "ping")["result"], Json::object());
  const Json reply = ask(2, "tools/list");
  EXPECT_EQ(reply["error"]["code"], -32600);
  EXPECT_NE(reply["error"]["message"].get<std::string>().find("initialize"), std::string::npos);
  EXPECT_EQ(ask(3, "nope")["error"]["code"], -32601);  // unknown stays unknown
}

TEST_F(SessionTest, ToolsListPaginates) {
  initialize();
  std::vector<std::string> names;
  Json cursor;
  for (int page = 0; page < 5; ++page) {
    const Json reply = ask(10 + page, "tools/list",
                           cursor.is_null() ? Json::object() : Json{{"cursor", cursor}});
    for (const auto& tool : reply["result"]["tools"]) names.push_back(tool["name"]);
    if (!reply["result"].contains("nextCursor")) break;
    cursor = reply["result"]["nextCursor"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"echo", "slow", "boom", "extra"}));
  EXPECT_EQ(ask(20, "tools/list", Json{{"cursor", "bogus"}})["error"]["code"], -32602);
}

TEST_F(SessionTest, ToolDefinitionsAreSerialised) {
  initialize();
  const Json tool = ask(1, "tools/list")["result"]["tools"][0];
  EXPECT_EQ(tool["name"], "echo");
  EXPECT_EQ(tool["description"], "echoes");
  EXPECT_EQ(tool["inputSchema"]["type"], "object");
  EXPECT_FALSE(tool.contains("outputSchema"));
  EXPECT_FALSE(tool.contains("annotations"));
  EXPECT_FALSE(tool.contains("title"));
}

TEST_F(SessionTest, CallReturnsTheToolResult) {
  initialize();
  const Json reply = call(5, "echo", Json{{"text", "h\xc3\xa9"}, {"count", 2.0}});
  EXPECT_EQ(reply["id"], 5);
  const Json& result = reply["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["text"], "h\xc3\xa9");
  EXPECT_TRUE(result["structuredContent"]["count"].is_number_integer());  // 2.0 normalised
  EXPECT_EQ(result["content"][0]["type"], "text");
  EXPECT_EQ(result["content"][0]["text"], R"({"text": "h\u00e9", "count": 2})");
  EXPECT_EQ(session_->calls_in_flight(), 0u);
}

TEST_F(SessionTest, ArgumentsDefaultToAnEmptyObject) {
  initialize();
  sent_.clear();
  send(request(1, "tools/call", Json{{"name", "echo"}}));
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["result"]["structuredContent"], Json::object());
}

TEST_F(SessionTest, InvalidArgumentsAreToolErrors) {
  initialize();
  for (const Json& arguments : {Json{{"count", "abc"}}, Json{{"text", nullptr}},
                                Json{{"count", 0}}, Json{{"count", 1.5}}, Json{{"other", 1}}}) {
    const Json reply = call(1, "echo", arguments);
    ASSERT_TRUE(reply.contains("result")) << arguments.dump();
    EXPECT_EQ(reply["result"]["isError"], true);
    const std::string text = reply["result"]["content"][0]["text"];
    EXPECT_EQ(text.rfind("Input validation error: ", 0), 0u) << text;
    EXPECT_FALSE(reply["result"].contains("structuredContent"));
  }
  EXPECT_NE(call(1, "echo", Json{{"count", "abc"}})["result"]["content"][0]["text"]
                .get<std::string>()
                .find("count"),
            std::string::npos);
}

TEST_F(SessionTest, MalformedCallsAreProtocolErrors) {
  initialize();
  const Json unknown = call(1, "nope", Json::object());
  EXPECT_EQ(unknown["error"]["code"], -32602);
  EXPECT_EQ(unknown["error"]["message"], "Unknown tool: nope");

  EXPECT_EQ(call(2, "echo", Json::array())["error"]["code"], -32602);  // arguments not an object
  EXPECT_EQ(call(3, "echo", "x")["error"]["code"], -32602);
  EXPECT_EQ(ask(4, "tools/call", Json{{"arguments", Json::object()}})["error"]["code"], -32602);
  EXPECT_EQ(ask(5, "tools/call", Json{{"name", 7}})["error"]["code"], -32602);
  EXPECT_EQ(ask(6, "tools/call", Json::array({1}))["error"]["code"], -32602);
}

TEST_F(SessionTest, ToolExceptionsBecomeErrorResults) {
  initialize();
  const Json reply = call(1, "boom", Json::object());
  EXPECT_EQ(reply["result"]["isError"], true);
  EXPECT_EQ(reply["result"]["content"][0]["text"], "Error executing tool boom: kaboom");
}

TEST_F(SessionTest, CallsRunConcurrently) {
  initialize();
  EXPECT_TRUE(call(1, "slow", Json::object()).is_null());  // no reply yet
  EXPECT_TRUE(call(2, "slow", Json::object()).is_null());
  EXPECT_EQ(session_->calls_in_flight(), 2u);
  EXPECT_EQ(ask(3, "ping")["id"], 3);  // answered while both calls run

  slow_.calls[1]->finish(ToolResult::from_payload(Json{{"n", 2}}, false));
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[1]["id"], 2);
  slow_.calls[0]->finish(ToolResult::error_text("failed"));
  ASSERT_EQ(sent_.size(), 3u);
  EXPECT_EQ(sent_[2]["id"], 1);
  EXPECT_EQ(sent_[2]["result"]["isError"], true);

  slow_.calls[0]->finish(ToolResult::error_text("again"));  // finish is once only
  EXPECT_EQ(sent_.size(), 3u);
  EXPECT_EQ(session_->calls_in_flight(), 0u);
}

TEST_F(SessionTest, DuplicateInFlightIdIsRejected) {
  initialize();
  call("same", "slow", Json::object());
  EXPECT_EQ(call("same", "slow", Json::object())["error"]["code"], -32600);
  EXPECT_EQ(slow_.calls.size(), 1u);
}

TEST_F(SessionTest, CancellationStopsTheCallAndSuppressesItsReply) {
  initialize();
  call(1, "slow", Json::object());
  int cancelled = 0;
  slow_.calls[0]->on_cancel([&] { ++cancelled; });
  sent_.clear();
  send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
            {"params", {{"requestId", 1}, {"reason", "user"}}}});
  EXPECT_EQ(cancelled, 1);
  EXPECT_TRUE(slow_.calls[0]->cancelled());
  EXPECT_EQ(session_->calls_in_flight(), 0u);
  slow_.calls[0]->report_progress(1, std::nullopt, "");
  slow_.calls[0]->finish(ToolResult::from_payload(Json::object(), false));
  EXPECT_TRUE(sent_.empty());

  // The id is free again and later calls work.
  EXPECT_EQ(call(1, "echo", Json::object())["id"], 1);
}

TEST_F(SessionTest, CancellationBeforeTheHandlerIsSetRunsItOnRegistration) {
  initialize();
  call(1, "slow", Json::object());
  send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
            {"params", {{"requestId", 1}}}});
  int cancelled = 0;
  slow_.calls[0]->on_cancel([&] { ++cancelled; });
  EXPECT_EQ(cancelled, 1);
}

TEST_F(SessionTest, CancellationOfUnknownOrStringMismatchedIdsIsIgnored) {
  initialize();
  call(1, "slow", Json::object());
  sent_.clear();
  for (const Json& id : {Json("1"), Json(2), Json(nullptr)}) {
    send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
              {"params", {{"requestId", id}}}});
  }
  send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}});
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(session_->calls_in_flight(), 1u);
  EXPECT_FALSE(slow_.calls[0]->cancelled());
}

TEST_F(SessionTest, CancelAllCallsAtShutdown) {
  initialize();
  call(1, "slow", Json::object());
  call(2, "extra", Json::object());
  int cancelled = 0;
  slow_.calls[0]->on_cancel([&] { ++cancelled; });
  extra_.calls[0]->on_cancel([&] { ++cancelled; });
  session_->cancel_all_calls();
  EXPECT_EQ(cancelled, 2);
  EXPECT_EQ(session_->calls_in_flight(), 0u);
}

TEST_F(SessionTest, CallsOutliveTheSessionSafely) {
  initialize();
  call(1, "slow", Json::object());
  int cancelled = 0;
  slow_.calls[0]->on_cancel([&] { ++cancelled; });
  session_.reset();
  EXPECT_EQ(cancelled, 1);
  slow_.calls[0]->report_progress(1, 2, "late");
  slow_.calls[0]->log(LogLevel::error, "late");
  slow_.calls[0]->finish(ToolResult::error_text("late"));  // must not touch the session
}

TEST_F(SessionTest, ProgressNeedsATokenAndMustIncrease) {
  initialize();
  call(1, "slow", Json::object());
  call(2, "slow", Json::object(), Json{{"progressToken", "tok"}});
  sent_.clear();
  slow_.calls[0]->report_progress(1, std::nullopt, "ignored: no token");
  EXPECT_TRUE(sent_.empty());

  slow_.calls[1]->report_progress(1, 4, "step one");
  slow_.calls[1]->report_progress(1, 4, "same value: dropped");
  slow_.calls[1]->report_progress(0.5, 4, "lower: dropped");
  slow_.calls[1]->report_progress(2.5, std::nullopt, "");
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0], Json::parse(R"({"jsonrpc":"2.0","method":"notifications/progress",
      "params":{"progressToken":"tok","progress":1,"total":4,"message":"step one"}})"));
  EXPECT_EQ(sent_[1]["params"], Json::parse(R"({"progressToken":"tok","progress":2.5})"));

  slow_.calls[1]->finish(ToolResult::error_text("done"));
  slow_.calls[1]->report_progress(3, 4, "after the result: dropped");
  EXPECT_EQ(sent_.size(), 3u);
}

TEST_F(SessionTest, MessagesNameTheRequestTheyBelongTo) {
  initialize();
  call(7, "slow", Json{{"a", 1}}, Json{{"progressToken", "tok"}});
  sent_.clear();
  related_.clear();
  slow_.calls[0]->report_progress(1, 2, "");
  slow_.calls[0]->log(LogLevel::error, "oops");
  slow_.calls[0]->finish(ToolResult::error_text("done"));
  send(request(8, "ping"));
  ASSERT_EQ(related_.size(), 4u);
  EXPECT_EQ(related_[0], 7);  // progress
  EXPECT_EQ(related_[1], 7);  // log message
  EXPECT_EQ(related_[2], 7);  // result
  EXPECT_EQ(related_[3], 8);  // ping's answer

  ASSERT_EQ(activity_.size(), 2u);
  EXPECT_EQ(activity_[0], Json::parse(R"({"phase":"request","tool":"slow","arguments":{"a":1}})"));
  EXPECT_EQ(activity_[1]["phase"], "result");
  EXPECT_EQ(activity_[1]["result"]["isError"], true);
}

TEST_F(SessionTest, ToolsAskTheClientAndGetItsAnswer) {
  ask(0, "initialize", Json{{"protocolVersion", "2025-11-25"},
                            {"capabilities", {{"sampling", Json::object()}}},
                            {"clientInfo", {{"name", "test"}, {"version", "1"}}}});
  call(4, "slow", Json::object());
  auto& tool_call = *slow_.calls[0];
  EXPECT_TRUE(tool_call.client_supports("sampling"));
  EXPECT_FALSE(tool_call.client_supports("elicitation"));

  std::vector<Expected<Json>> answers;
  sent_.clear();
  related_.clear();
  tool_call.request_client("sampling/createMessage", Json{{"maxTokens", 5}},
                           [&answers](Expected<Json> answer) { answers.push_back(answer); });
  tool_call.request_client("sampling/createMessage", Json{{"maxTokens", 6}},
                           [&answers](Expected<Json> answer) { answers.push_back(answer); });
  ASSERT_EQ(sent_.size(), 2u);
  EXPECT_EQ(sent_[0], Json::parse(R"({"jsonrpc":"2.0","id":"server-1",
      "method":"sampling/createMessage","params":{"maxTokens":5}})"));
  EXPECT_EQ(related_[0], 4);  // on the call's stream
  EXPECT_EQ(sent_[1]["id"], "server-2");

  send(Json{{"jsonrpc", "2.0"}, {"id", "server-2"}, {"error", {{"code", -1}, {"message", "no"}}}});
  send(Json{{"jsonrpc", "2.0"}, {"id", "server-1"}, {"result", {{"model", "m"}}}});
  send(Json{{"jsonrpc", "2.0"}, {"id", "server-1"}, {"result", Json::object()}});  // twice: ignored
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_FALSE(answers[0].ok());
  EXPECT_EQ(answers[0].error().message, "the client answered with error -1: no");
  ASSERT_TRUE(answers[1].ok());
  EXPECT_EQ(answers[1].value(), Json::parse(R"({"model":"m"})"));

  // Once the call is over, a late answer reaches nobody.
  tool_call.request_client("sampling/createMessage", Json::object(),
                           [&answers](Expected<Json> answer) { answers.push_back(answer); });
  tool_call.finish(ToolResult::error_text("done"));
  send(Json{{"jsonrpc", "2.0"}, {"id", "server-3"}, {"result", Json::object()}});
  EXPECT_EQ(answers.size(), 2u);
}

TEST_F(SessionTest, LoggingFollowsSetLevel) {
  initialize();
  call(1, "slow", Json::object());
  sent_.clear();
  slow_.calls[0]->log(LogLevel::debug, "hidden by the default threshold (info)");
  slow_.calls[0]->log(LogLevel::warning, Json{{"k", "v"}});
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0], Json::parse(R"({"jsonrpc":"2.0","method":"notifications/message",
      "params":{"level":"warning","logger":"slow","data":{"k":"v"}}})"));

  EXPECT_EQ(ask(2, "logging/setLevel", Json{{"level", "error"}})["result"], Json::object());
  sent_.clear();
  slow_.calls[0]->log(LogLevel::warning, "below");
  slow_.calls[0]->log(LogLevel::critical, "above");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["params"]["level"], "critical");

  EXPECT_EQ(ask(3, "logging/setLevel", Json{{"level", "loud"}})["error"]["code"], -32602);
  EXPECT_EQ(ask(4, "logging/setLevel", Json::object())["error"]["code"], -32602);
}

TEST_F(SessionTest, ParseErrorsAndInvalidRequests) {
  sent_.clear();
  send_line("{broken");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_TRUE(sent_[0]["id"].is_null());
  EXPECT_EQ(sent_[0]["error"]["code"], -32700);

  sent_.clear();
  send_line(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])");
  send_line(R"({"jsonrpc":"2.0","id":{"x":1},"method":"ping"})");
  send_line(R"({"jsonrpc":"1.0","id":4,"method":"ping"})");
  send_line("17");
  ASSERT_EQ(sent_.size(), 4u);
  for (const auto& reply : sent_) EXPECT_EQ(reply["error"]["code"], -32600);
  EXPECT_EQ(sent_[2]["id"], 4);

  sent_.clear();
  session_->reject_unreadable_line("message larger than 64 MiB");
  ASSERT_EQ(sent_.size(), 1u);
  EXPECT_EQ(sent_[0]["error"]["code"], -32700);
  EXPECT_NE(sent_[0]["error"]["message"].get<std::string>().find("64 MiB"), std::string::npos);
}

TEST_F(SessionTest, UnknownMethodsAndNotifications) {
  initialize();
  const Json reply = ask("x", "sampling/createMessage");
  EXPECT_EQ(reply["error"]["code"], -32601);
  EXPECT_EQ(reply["id"], "x");
  sent_.clear();
  send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}});
  send(Json{{"jsonrpc", "2.0"}, {"id", 9}, {"result", Json::object()}});  // a response: ignored
  EXPECT_TRUE(sent_.empty());
}

TEST_F(SessionTest, ResourcesPromptsAndCompletionsAnswerWithNothingPublished) {
  initialize();
  EXPECT_EQ(ask(1, "resources/list")["result"], Json::parse(R"({"resources":[]})"));
  EXPECT_EQ(ask(2, "resources/templates/list")["result"],
            Json::parse(R"({"resourceTemplates":[]})"));
  const Json missing = ask(3, "resources/read", Json{{"uri", "test://nothing"}});
  EXPECT_EQ(missing["error"]["code"], -32002);
  EXPECT_EQ(missing["error"]["message"], "Resource not found: test://nothing");
  EXPECT_EQ(ask(4, "resources/read", Json::object())["error"]["code"], -32602);
  EXPECT_EQ(ask(5, "resources/subscribe", Json{{"uri", "test://w"}})["result"], Json::object());
  EXPECT_EQ(ask(6, "resources/unsubscribe", Json{{"uri", "test://w"}})["result"], Json::object());
  EXPECT_EQ(ask(7, "resources/subscribe", Json::object())["error"]["code"], -32602);
  EXPECT_EQ(ask(8, "prompts/list")["result"], Json::parse(R"({"prompts":[]})"));
  EXPECT_EQ(ask(9, "prompts/get", Json{{"name", "p"}})["error"]["message"],
            "Invalid params: unknown prompt: p");
  EXPECT_EQ(ask(10, "completion/complete",
                Json{{"ref", {{"type", "ref/prompt"}, {"name", "p"}}},
                     {"argument", {{"name", "a"}, {"value", "x"}}}})["result"],
            Json::parse(R"({"completion":{"values":[],"hasMore":false}})"));
  EXPECT_EQ(ask(11, "completion/complete", Json::object())["error"]["code"], -32602);
}

TEST_F(SessionTest, CompletionWithANonStringFieldIsInvalidParams) {
  initialize();
  const Json prompt_ref{{"type", "ref/prompt"}, {"name", "p"}};
  const Json wrong_argument_name = ask(1, "completion/complete",
      Json{{"ref", prompt_ref}, {"argument", {{"name", 7}, {"value", "x"}}}});
  EXPECT_EQ(wrong_argument_name["error"]["code"], -32602);
  EXPECT_EQ(wrong_argument_name["error"]["message"],
            "Invalid params: argument.name must be a string");
  const Json wrong_value = ask(2, "completion/complete",
      Json{{"ref", prompt_ref}, {"argument", {{"name", "a"}, {"value", Json::array()}}}});
  EXPECT_EQ(wrong_value["error"]["message"], "Invalid params: argument.value must be a string");
  const Json wrong_ref_name = ask(3, "completion/complete",
      Json{{"ref", {{"type", "ref/prompt"}, {"name", nullptr}}},
           {"argument", {{"name", "a"}, {"value", "x"}}}});
  EXPECT_EQ(wrong_ref_name["error"]["message"], "Invalid params: ref.name must be a string");
  const Json wrong_uri = ask(4, "completion/complete",
      Json{{"ref", {{"type", "ref/resource"}, {"uri", 1.5}}},
           {"argument", {{"name", "a"}, {"value", "x"}}}});
  EXPECT_EQ(wrong_uri["error"]["message"], "Invalid params: ref.uri must be a string");
}

TEST_F(SessionTest, ParamsMustBeAnObject) {
  initialize();
  EXPECT_EQ(ask(1, "tools/list", Json::array())["error"]["code"], -32602);
  EXPECT_EQ(ask(2, "ping", Json::array())["error"]["code"], -32602);
}

}  // namespace
}  // namespace vc::mcp
