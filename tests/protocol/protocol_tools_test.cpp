// tools/list and tools/call against the process backend: results, concurrency, cancellation,
// progress.
#include <signal.h>

#include <cerrno>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "host_process.h"

namespace vc::protocol_test {
namespace {

Json call_params(const Json& arguments, const Json& meta = nullptr) {
  Json params{{"name", "terminal_execute"}, {"arguments", arguments}};
  if (!meta.is_null()) params["_meta"] = meta;
  return params;
}

class ProtocolTools : public ::testing::Test {
 protected:
  ProtocolTools() : host_(process_args(scratch_)) { host_.initialize(); }

  Json call(const Json& id, const Json& arguments) {
    return host_.request(id, "tools/call", call_params(arguments), 60s);
  }

  TempDir scratch_;
  HostProcess host_;
};

TEST_F(ProtocolTools, ListsTerminalExecute) {
  const Json result = host_.request(1, "tools/list")["result"];
  ASSERT_TRUE(result["tools"].is_array());
  EXPECT_FALSE(result.contains("nextCursor"));
  const Json* tool = nullptr;
  for (const auto& candidate : result["tools"]) {
    if (candidate["name"] == "terminal_execute") tool = &candidate;
  }
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ((*tool)["inputSchema"]["type"], "object");
  EXPECT_TRUE((*tool)["inputSchema"]["properties"].contains("command"));
  EXPECT_EQ((*tool)["outputSchema"]["type"], "object");
  EXPECT_TRUE((*tool)["annotations"].is_object());
  EXPECT_FALSE((*tool)["description"].get<std::string>().empty());
}

TEST_F(ProtocolTools, EchoReturnsStdoutInStructuredContentAndText) {
  const Json result = call(2, {{"command", "echo hello-protocol"}})["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["stdout"], "hello-protocol\n");
  EXPECT_EQ(result["structuredContent"]["exit_code"], 0);
  EXPECT_EQ(result["structuredContent"]["computer_id"], "protocol-test");
  const std::string text = result["content"][0]["text"];
  EXPECT_NE(text.find(R"("stdout": "hello-protocol\n")"), std::string::npos) << text;
  EXPECT_EQ(Json::parse(text), result["structuredContent"]);
}

TEST_F(ProtocolTools, NonZeroExitIsNotAnError) {
  const Json result = call(3, {{"command", "echo out; echo err >&2; exit 3"}})["result"];
  EXPECT_EQ(result["isError"], false);
  EXPECT_EQ(result["structuredContent"]["exit_code"], 3);
  EXPECT_EQ(result["structuredContent"]["stdout"], "out\n");
  EXPECT_EQ(result["structuredContent"]["stderr"], "err\n");
}

TEST_F(ProtocolTools, StdinReachesTheCommand) {
  const Json result = call(4, {{"command", "cat"}, {"stdin", "piped \xc3\xa9 input"}})["result"];
  EXPECT_EQ(result["structuredContent"]["stdout"], "piped \xc3\xa9 input");
}

TEST_F(ProtocolTools, ArgsRunWithoutAShell) {
  const Json result = call(5, {{"args", {"printf", "%s|", "a b", "$HOME"}}})["result"];
  EXPECT_EQ(result["structuredContent"]["stdout"], "a b|$HOME|");
}

TEST_F(ProtocolTools, PingIsAnsweredWhileACommandRuns) {
  host_.send(Json{{"jsonrpc", "2.0"}, {"id", "slow"}, {"method", "tools/call"},
                  {"params", call_params({{"command", "sleep 10"}})}});
  std::this_thread::sleep_for(300ms);  // let the call start
  host_.send(Json{{"jsonrpc", "2.0"}, {"id", "ping"}, {"method", "ping"}});
  std::optional<Json> first;
  while (true) {  // skip progress and log notifications
    first = host_.next_message(8s);
    if (!first || !first->contains("method")) break;
  }
  ASSERT_TRUE(first) << "no reply within 8 s";
  EXPECT_EQ((*first)["id"], "ping");
  host_.send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                  {"params", {{"requestId", "slow"}}}});
}

TEST_F(ProtocolTools, CancellationStopsTheCommandAndSuppressesItsReply) {
  const auto pid_file = scratch_.path() / "sleep.pid";
  host_.send(Json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
                  {"params", call_params({{"command", "echo $$ > " + pid_file.string() +
                                                          "; exec sleep 30"}})}});
  pid_t pid = 0;
  for (int i = 0; i < 200 && pid == 0; ++i) {
    std::this_thread::sleep_for(50ms);
    std::ifstream in(pid_file);
    in >> pid;
  }
  ASSERT_GT(pid, 0) << "the command never wrote its pid";
  EXPECT_EQ(kill(pid, 0), 0);

  host_.send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                  {"params", {{"requestId", 7}, {"reason", "test"}}}});
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    std::this_thread::sleep_for(50ms);
    gone = kill(pid, 0) != 0 && errno == ESRCH;
  }
  EXPECT_TRUE(gone) << "the cancelled command (pid " << pid << ") is still running";

  // No reply for the cancelled request; the next call works.
  const Json later = call(8, {{"command", "echo after"}});
  EXPECT_EQ(later["result"]["structuredContent"]["stdout"], "after\n");
  for (const auto& message : host_.others()) {
    EXPECT_FALSE(message.contains("id") && message["id"] == 7) << message.dump();
  }
  EXPECT_FALSE(host_.next_message(500ms));
}

TEST_F(ProtocolTools, FirstAcquisitionReportsProgressWithAToken) {
  const Json response = host_.request(
      9, "tools/call", call_params({{"command", "true"}}, {{"progressToken", "tok-1"}}), 60s);
  EXPECT_EQ(response["result"]["isError"], false);
  std::vector<Json> progress;
  for (const auto& note : host_.notifications()) {
    if (note["method"] == "notifications/progress") progress.push_back(note["params"]);
  }
  ASSERT_FALSE(progress.empty()) << "no notifications/progress before the result";
  double last = -1;
  for (const auto& params : progress) {
    EXPECT_EQ(params["progressToken"], "tok-1");
    EXPECT_GT(params["progress"].get<double>(), last);
    last = params["progress"].get<double>();
  }
}

TEST_F(ProtocolTools, NoProgressWithoutAToken) {
  call(10, {{"command", "true"}});
  for (const auto& note : host_.notifications()) {
    EXPECT_NE(note["method"], "notifications/progress") << note.dump();
  }
}

TEST_F(ProtocolTools, WrongArgumentTypesAreInputValidationErrors) {
  for (const Json& arguments : {Json{{"command", "true"}, {"timeout", "abc"}},
                                Json{{"command", nullptr}},
                                Json{{"command", "true"}, {"timeout", nullptr}},
                                Json{{"args", "not-a-list"}},
                                Json{{"command", "true"}, {"timeout", 1.5}}}) {
    const Json result = call(11, arguments)["result"];
    EXPECT_EQ(result["isError"], true) << arguments.dump();
    const std::string text = result["content"][0]["text"];
    EXPECT_EQ(text.rfind("Input validation error", 0), 0u) << text;
  }
}

TEST_F(ProtocolTools, ToolLevelErrorsAreIsErrorResults) {
  const Json result = call(12, Json::object())["result"];  // neither command nor args
  EXPECT_EQ(result["isError"], true);
  EXPECT_NE(result["structuredContent"]["error"].get<std::string>().find("Must provide either"),
            std::string::npos);
}

TEST_F(ProtocolTools, UnknownToolIsInvalidParams) {
  const Json response = host_.request(13, "tools/call", {{"name", "no_such_tool"}, {"arguments", Json::object()}});
  EXPECT_EQ(response["error"]["code"], -32602);
  EXPECT_EQ(response["error"]["message"], "Unknown tool: no_such_tool");
}

TEST_F(ProtocolTools, LoggingSetLevel) {
  EXPECT_EQ(host_.request(14, "logging/setLevel", {{"level", "debug"}})["result"], Json::object());
  EXPECT_EQ(host_.request(15, "logging/setLevel", {{"level", "chatty"}})["error"]["code"], -32602);
}

}  // namespace
}  // namespace vc::protocol_test
