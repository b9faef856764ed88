// The binary's command line: plugins listing, backend errors, help, exit codes.
#include <gtest/gtest.h>

#include "host_process.h"

namespace vc::protocol_test {
namespace {

TEST(ProtocolCli, PluginsListsTheTemplateBackend) {
  const CliResult result = run_host({"plugins"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("template"), std::string::npos) << result.out;
}

TEST(ProtocolCli, UnknownBackendIsAOneLineErrorListingTheAvailableOnes) {
  const CliResult result = run_host({"--backend", "nope"});
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("Available backends"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("template"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.rfind("mcp-virtual-computer: error: ", 0), 0u) << result.err;
  EXPECT_TRUE(result.out.empty());
}

TEST(ProtocolCli, TemplateHelpShowsItsOptionsAndWarning) {
  const CliResult result = run_host({"--backend", "template", "--help"});
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
  auto args = template_args(scratch);
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

TEST(ProtocolCli, UsageErrorsExitWithTwo) {
  TempDir scratch;
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--bogus"}, {"--port", "abc"}, {"--transport", "smoke-signals"}}) {
    auto all = template_args(scratch);
    all.insert(all.end(), extra.begin(), extra.end());
    const CliResult result = run_host(all);
    EXPECT_EQ(result.exit_code, 2) << extra[0] << ": " << result.err;
  }
}

TEST(ProtocolCli, HttpTransportIsNotAvailableYet) {
  TempDir scratch;
  auto args = template_args(scratch);
  args.insert(args.end(), {"--transport", "http"});
  const CliResult result = run_host(args);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("http transport is not available"), std::string::npos) << result.err;
}

TEST(ProtocolCli, OverrideReplacesTheToolDescription) {
  TempDir scratch;
  auto args = template_args(scratch);
  args.insert(args.end(), {"--tool-instruction-override", "Custom description."});
  HostProcess host(args);
  host.initialize();
  const Json tools = host.request(1, "tools/list")["result"]["tools"];
  ASSERT_FALSE(tools.empty());
  EXPECT_EQ(tools[0]["description"], "Custom description.");
}

}  // namespace
}  // namespace vc::protocol_test
