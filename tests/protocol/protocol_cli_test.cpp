// The binary's command line: plugins listing, backend errors, help, exit codes.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>

#include "host_process.h"

namespace vc::protocol_test {
namespace {

TEST(ProtocolCli, PluginsListsTheProcessBackend) {
  const CliResult result = run_host({"plugins"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  // By its id: "process" alone also occurs in other plugins' descriptions.
  EXPECT_NE(result.out.find("org.mcp-virtual-computer.process"), std::string::npos) << result.out;
}

TEST(ProtocolCli, UnknownBackendIsAOneLineErrorListingTheAvailableOnes) {
  const CliResult result = run_host({"--backend", "nope"});
  EXPECT_EQ(result.exit_code, 1);
  const std::string::size_type names = result.err.find("Available backends: ");
  ASSERT_NE(names, std::string::npos) << result.err;
  const std::string listed = result.err.substr(names, result.err.find(" (searched:") - names);
  EXPECT_NE(listed.find("process"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.rfind("mcp-virtual-computer: error: ", 0), 0u) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST(ProtocolCli, ProcessHelpShowsItsOptionsAndWarning) {
  const CliResult result = run_host({"--backend", "process", "--help"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("--scratch-root"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("NOT a sandbox"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("--transport"), std::string::npos);
}

TEST(ProtocolCli, HelpWorksWithoutALoadableBackend) {
  const CliResult result = run_host({"--backend", "nope", "--help"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("--transport"), std::string::npos);
  EXPECT_NE(result.out.find("No backend plugin was loaded"), std::string::npos) << result.out;
}

TEST(ProtocolCli, ConfigurationErrorsExitWithOne) {
  TempDir scratch;
  auto args = process_args(scratch);
  for (const auto& [extra, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--timeout", "0"}, "--timeout must be at least 1 second."},
           {{"--output-limit", "0"}, "--output-limit must be at least 1 byte."},
           {{"--port", "9999"}, "--port is only valid with --transport http"},
           {{"--computer-id", "Bad_Id"}, "COMPUTER_ID must be 1-63 lowercase letters"}}) {
    auto all = args;
    all.insert(all.end(), extra.begin(), extra.end());
    const CliResult result = run_host(all);
    EXPECT_EQ(result.exit_code, 1) << extra[0];
    EXPECT_NE(result.err.find("mcp-virtual-computer: error: " + message), std::string::npos) << result.err;
  }
  const CliResult network = run_host(args, {{"NETWORK_ACCESS", "sometimes"}});
  EXPECT_EQ(network.exit_code, 1);
  EXPECT_NE(network.err.find("NETWORK_ACCESS must be one of"), std::string::npos) << network.err;
}

TEST(ProtocolCli, AnUnusableRequestStateKeyFileIsAClearErrorBeforeAnythingStarts) {
  TempDir scratch;
  const std::string short_key = (scratch.path() / "short.key").string();
  const std::string missing_key = (scratch.path() / "missing.key").string();
  { std::ofstream(short_key) << "tiny\n"; }
  for (const auto& [file, message] : std::vector<std::pair<std::string, std::string>>{
           {short_key, "The request-state key file " + short_key + " holds 4 bytes; it needs 16 to 4096"},
           {missing_key, "Cannot read the request-state key file " + missing_key}}) {
    auto args = process_args(scratch);
    args.insert(args.end(), {"--request-state-key-file", file});
    const CliResult result = run_host(args);
    EXPECT_EQ(result.exit_code, 1) << file;
    EXPECT_NE(result.err.find("mcp-virtual-computer: error: " + message), std::string::npos)
        << result.err;
  }
}

TEST(ProtocolCli, UsageErrorsExitWithTwo) {
  TempDir scratch;
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--bogus"}, {"--port", "abc"}, {"--transport", "smoke-signals"}}) {
    auto all = process_args(scratch);
    all.insert(all.end(), extra.begin(), extra.end());
    const CliResult result = run_host(all);
    EXPECT_EQ(result.exit_code, 2) << extra[0] << ": " << result.err;
  }
}

TEST(ProtocolCli, HttpTransportOnABusyPortFailsClearly) {
  // Hold a loopback port, then ask the host to serve on it.
  const int holder = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(holder, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
  ASSERT_EQ(bind(holder, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(holder, 1), 0);
  socklen_t length = sizeof address;
  getsockname(holder, reinterpret_cast<sockaddr*>(&address), &length);
  const std::string port = std::to_string(ntohs(address.sin_port));

  TempDir scratch;
  auto args = process_args(scratch);
  args.insert(args.end(), {"--transport", "http", "--port", port});
  const CliResult result = run_host(args);
  close(holder);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("cannot listen for HTTP on 127.0.0.1:" + port), std::string::npos)
      << result.err;
  EXPECT_NE(result.err.find("address already in use"), std::string::npos) << result.err;
}

TEST(ProtocolCli, OverrideReplacesTheToolDescription) {
  TempDir scratch;
  auto args = process_args(scratch);
  args.insert(args.end(), {"--tool-instruction-override", "Custom description."});
  HostProcess host(args);
  host.initialize();
  const Json tools = host.request(1, "tools/list")["result"]["tools"];
  ASSERT_FALSE(tools.empty());
  EXPECT_EQ(tools[0]["description"], "Custom description.");
}

}  // namespace
}  // namespace vc::protocol_test
