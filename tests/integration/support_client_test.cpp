// support_client_test.cpp — the MCP test client itself (tests/support), against scripted
// stand-in servers (/bin/sh scripts), so that a failure in an integration test is the
// product's and not the harness's. Needs no engine.
#include <csignal>

#include <gtest/gtest.h>

#include "command_runner.h"
#include "mcp_client.h"

namespace vc::test {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<McpClient> scripted(const std::string& script) {
  McpClientOptions options;
  options.binary = "/bin/sh";
  options.args = {"-c", script};
  options.default_timeout = 10s;
  return std::make_unique<McpClient>(options);
}

TEST(SupportClient, MatchesResponsesByIdAndCollectsNotifications) {
  auto server = scripted(
      "read first; read second; "
      "echo '{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":1}}'; "
      "echo 'not json'; "
      "echo '{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"which\":\"second\"}}'; "
      "echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"which\":\"first\"}}'; "
      "cat >/dev/null");
  const Json first = server->send_request("a");
  const Json second = server->send_request("b");
  EXPECT_EQ(server->await_response(first)["result"]["which"], "first");
  EXPECT_EQ(server->await_response(second)["result"]["which"], "second");
  ASSERT_EQ(server->notifications().size(), 1u);
  EXPECT_EQ(server->notifications()[0]["params"]["progress"], 1);
  ASSERT_EQ(server->unparsable_lines().size(), 1u);
  EXPECT_EQ(server->unparsable_lines()[0], "not json");
  // Arrival order is kept for protocol tests.
  ASSERT_EQ(server->received().size(), 3u);
  EXPECT_EQ(server->received()[1]["id"], 2);
  const auto status = server->close(5s);
  EXPECT_TRUE(status.exited && status.code == 0) << status.describe();
}

TEST(SupportClient, AnswersAServerPingAndCapturesStderr) {
  auto server = scripted(
      "echo '{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"ping\"}'; "
      "read answer; echo \"client said: $answer\" >&2");
  // Reading the ping answers it; the server then logs the answer and exits.
  ASSERT_TRUE(server->next_message(5s).has_value());
  ASSERT_TRUE(server->wait_for_exit(10s).has_value());
  EXPECT_NE(server->stderr_text().find(R"(client said: {"jsonrpc":"2.0","id":"s1","result":{}})"),
            std::string::npos)
      << server->stderr_text();
  EXPECT_EQ(server->server_requests().size(), 1u);
}

TEST(SupportClient, TimeoutAndEofThrowWithDiagnostics) {
  auto silent = scripted("echo 'about to stall' >&2; sleep 30");
  try {
    silent->request("initialize", Json::object(), 300ms);
    ADD_FAILURE() << "no exception";
  } catch (const McpClientError& error) {
    const std::string text = error.what();
    EXPECT_NE(text.find("no response to request 1 within 300 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("about to stall"), std::string::npos) << text;
    EXPECT_NE(text.find("-> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\""),
              std::string::npos)
        << text;
  }
  EXPECT_FALSE(silent->try_await_response(1, 100ms).has_value());
  // A server that ignores stdin EOF is SIGKILLed after the grace period.
  const auto status = silent->close(200ms);
  EXPECT_EQ(status.signal, SIGKILL) << status.describe();

  // The server reads the request before quitting, so the write always lands and the client
  // must notice the EOF on stdout.
  auto quitter = scripted("read request; exit 3");
  EXPECT_THROW(quitter->request("ping", std::nullopt, 5s), McpClientError);
  EXPECT_TRUE(quitter->stdout_closed());
  const auto code = quitter->wait_for_exit(5s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(code->code, 3);

  // A server that is already gone refuses the write itself.
  auto gone = scripted("exit 4");
  ASSERT_TRUE(gone->wait_for_exit(5s).has_value());
  try {
    gone->request("ping", std::nullopt, 5s);
    ADD_FAILURE() << "no exception";
  } catch (const McpClientError& error) {
    const std::string text = error.what();
    EXPECT_TRUE(text.find("could not write to the server's stdin") != std::string::npos ||
                text.find("closed stdout before answering") != std::string::npos)
        << text;
  }
}

TEST(SupportClient, PayloadOfPrefersStructuredContent) {
  const Json structured = {{"content", {{{"type", "text"}, {"text", "{\"a\":1}"}}}},
                           {"structuredContent", {{"a", 2}}}};
  EXPECT_EQ(McpClient::payload_of(structured)["a"], 2);
  const Json text_only = {{"content", {{{"type", "text"}, {"text", "{\"a\":1}"}}}},
                          {"isError", true}};
  EXPECT_EQ(McpClient::payload_of(text_only)["a"], 1);
  EXPECT_TRUE(McpClient::is_error(text_only));
  const Json plain = {{"content", {{{"type", "text"}, {"text", "Unknown tool: x"}}}}};
  EXPECT_EQ(McpClient::payload_of(plain), "Unknown tool: x");
}

TEST(SupportClient, RunCommandCapturesBothStreamsAndTimesOut) {
  const auto result = run_command({"sh", "-c", "cat; echo err >&2; exit 4"}, 10s, "in\n");
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.status.code, 4);
  EXPECT_EQ(result.out, "in\n");
  EXPECT_EQ(result.err, "err\n");
  const auto slow = run_command({"sleep", "30"}, 200ms);
  EXPECT_TRUE(slow.timed_out);
  EXPECT_FALSE(slow.ok());
}

}  // namespace
}  // namespace vc::test
