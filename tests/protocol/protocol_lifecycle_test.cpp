// Lifecycle over stdio: initialize and version negotiation, ping, shutdown on EOF and SIGTERM.
#include <signal.h>

#include <sstream>

#include <gtest/gtest.h>

#include "host_process.h"

namespace vc::protocol_test {
namespace {

TEST(ProtocolLifecycle, InitializeEchoesEverySupportedVersion) {
  for (const char* version : {"2025-11-25", "2025-06-18", "2025-03-26"}) {
    TempDir scratch;
    HostProcess host(process_args(scratch));
    const Json result = host.initialize(version);
    EXPECT_EQ(result["protocolVersion"], version);
    EXPECT_EQ(result["serverInfo"]["name"], "MCP Virtual Computer");
    EXPECT_TRUE(result["serverInfo"]["version"].is_string());
    // The desktop tools come and go with the desktop: the lists can change.
    EXPECT_EQ(result["capabilities"]["tools"]["listChanged"], true);
    EXPECT_EQ(result["capabilities"]["resources"]["listChanged"], true);
    EXPECT_TRUE(result["capabilities"]["logging"].is_object());
    EXPECT_FALSE(result.contains("instructions"));
  }
}

TEST(ProtocolLifecycle, UnknownVersionGetsTheLatest) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  EXPECT_EQ(host.initialize("2024-01-01")["protocolVersion"], "2025-11-25");
}

TEST(ProtocolLifecycle, PingWorksBeforeAndAfterInitialize) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  EXPECT_EQ(host.request(1, "ping")["result"], Json::object());
  host.initialize();
  EXPECT_EQ(host.request("p", "ping")["result"], Json::object());
}

TEST(ProtocolLifecycle, RequestsBeforeInitializeAreRefused) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  const Json response = host.request(1, "tools/list");
  EXPECT_EQ(response["error"]["code"], -32600);
}

TEST(ProtocolLifecycle, EndOfInputShutsDownWithExitZero) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  host.initialize();
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(15s), 0);
  EXPECT_FALSE(host.next_message(1s));  // nothing after the replies
}

TEST(ProtocolLifecycle, EndOfInputWithoutAnyRequest) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(15s), 0);
}

TEST(ProtocolLifecycle, StdinFromDevNullOrClosedEndsCleanly) {
  TempDir scratch;
  for (const Stdin mode : {Stdin::dev_null, Stdin::closed}) {
    const CliResult result = run_host(process_args(scratch), {}, mode);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(result.out.empty()) << result.out;  // stdout carries protocol only
  }
}

TEST(ProtocolLifecycle, RequestsFromARegularFileAreAnswered) {
  TempDir scratch;
  const std::string requests =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}})"
      "\n"
      R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
      "\n"
      R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})";  // no final newline
  const CliResult result = run_host(process_args(scratch), {}, Stdin::file, requests);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  std::vector<Json> replies;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) replies.push_back(Json::parse(line));
  ASSERT_EQ(replies.size(), 3u) << result.out;
  EXPECT_EQ(replies[0]["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(replies[1]["id"], 2);
  EXPECT_EQ(replies[2]["result"]["tools"][0]["name"], "terminal_execute");
}

TEST(ProtocolLifecycle, SigtermShutsDownWithExitZero) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  host.initialize();  // signals are watched once the server runs
  host.signal(SIGTERM);
  EXPECT_EQ(host.wait_exit(15s), 0);
}

TEST(ProtocolLifecycle, SigintShutsDownWithExitZero) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  host.initialize();
  host.signal(SIGINT);
  EXPECT_EQ(host.wait_exit(15s), 0);
}

TEST(ProtocolLifecycle, ShutdownCancelsARunningCommand) {
  TempDir scratch;
  HostProcess host(process_args(scratch));
  host.initialize();
  host.send(Json{{"jsonrpc", "2.0"}, {"id", 5}, {"method", "tools/call"},
                 {"params", {{"name", "terminal_execute"}, {"arguments", {{"command", "sleep 30"}}}}}});
  EXPECT_EQ(host.request(6, "ping")["id"], 6);  // the call has been dispatched
  host.close_stdin();
  EXPECT_EQ(host.wait_exit(15s), 0);
}

}  // namespace
}  // namespace vc::protocol_test
