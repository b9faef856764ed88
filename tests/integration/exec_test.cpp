// exec_test.cpp — terminal_execute against a real computer: shell and argv modes, working
// directory, stdin, what persists between calls, failing commands and the argument errors
// (docs/compatibility.md, "terminal_execute").
#include "engine_test.h"

namespace vc::integration {
namespace {

class ExecTest : public EngineTest {};

TEST_P(ExecTest, PipesRunThroughTheShellOfCommand) {
  auto host = start_host();
  const Json payload = execute(*host, {{"command", "printf 'b\\na\\nb\\nc\\n' | sort | uniq -c | wc -l"}});
  EXPECT_EQ(payload["stdout"], "3\n");
  EXPECT_EQ(payload["stderr"], "");
  EXPECT_EQ(payload["exit_code"], 0);
  close_host(host);
}

TEST_P(ExecTest, ResultHasTheOriginalsKeysInOrder) {
  auto host = start_host();
  const Json result = call_terminal(*host, {{"command", "echo hi"}});
  ASSERT_FALSE(test::McpClient::is_error(result)) << result.dump();
  const Json payload = test::McpClient::payload_of(result);
  std::vector<std::string> keys;
  for (const auto& [key, value] : payload.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"computer_id", "operation", "desktop_environment",
                                            "network_access", "desktop_url", "stdout", "stderr",
                                            "exit_code", "exec_duration_ms"}));
  EXPECT_EQ(payload["computer_id"], computer_id());
  EXPECT_EQ(payload["operation"], "terminal_execute");
  EXPECT_EQ(payload["desktop_environment"], false);
  EXPECT_EQ(payload["network_access"], true);
  EXPECT_TRUE(payload["desktop_url"].is_null());
  EXPECT_EQ(payload["stdout"], "hi\n");
  EXPECT_TRUE(payload["exec_duration_ms"].is_number_integer());
  close_host(host);
}

TEST_P(ExecTest, ArgsArePassedLiterallyWithoutAShell) {
  auto host = start_host();
  const Json payload = execute(
      *host, {{"args", {"printf", "[%s]\\n", "two words", "it's", "\"double\"", "$HOME", "*", "a;b|c"}}});
  EXPECT_EQ(payload["stdout"], "[two words]\n[it's]\n[\"double\"]\n[$HOME]\n[*]\n[a;b|c]\n");
  EXPECT_EQ(payload["exit_code"], 0);
  close_host(host);
}

TEST_P(ExecTest, WorkingDirectoryDefaultsToTheWorkspace) {
  auto host = start_host();
  EXPECT_EQ(execute(*host, {{"command", "pwd"}})["stdout"], "/workspace\n");
  EXPECT_EQ(execute(*host, {{"command", "pwd"}, {"working_directory", "/tmp"}})["stdout"], "/tmp\n");
  EXPECT_EQ(execute(*host, {{"args", {"pwd"}}, {"working_directory", "/usr/lib"}})["stdout"],
            "/usr/lib\n");
  close_host(host);
}

TEST_P(ExecTest, StdinRoundTripsNewlinesTabsAndNonAscii) {
  auto host = start_host();
  const std::string text = "first line\n\tindented\twith tabs\n\nnon-ASCII: h\xC3\xA9llo \xE2\x9C\x93 "
                           "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E \xF0\x9F\x99\x82\nno final newline";
  const Json via_args = execute(*host, {{"args", {"cat"}}, {"stdin", text}});
  EXPECT_EQ(via_args["stdout"], text);
  const Json via_shell = execute(*host, {{"command", "wc -l"}, {"stdin", text}});
  EXPECT_EQ(via_shell["stdout"], "4\n");
  // Without stdin the command sees EOF at once instead of waiting for input.
  const Json no_stdin = execute(*host, {{"command", "cat; echo done"}, {"timeout", 20}});
  EXPECT_EQ(no_stdin["stdout"], "done\n");
  close_host(host);
}

TEST_P(ExecTest, FilesystemPersistsButShellStateDoesNot) {
  auto host = start_host();
  execute(*host, {{"command", "echo kept > /workspace/state.txt; export VC_VARIABLE=set; cd /tmp"}});
  const Json payload =
      execute(*host, {{"command", "cat /workspace/state.txt; echo \"[${VC_VARIABLE:-}]\"; pwd"}});
  EXPECT_EQ(payload["stdout"], "kept\n[]\n/workspace\n");
  close_host(host);
}

TEST_P(ExecTest, FailingCommandReportsStderrAndExitCode) {
  auto host = start_host();
  const Json result = call_terminal(*host, {{"command", "ls /nonexistent"}});
  EXPECT_FALSE(test::McpClient::is_error(result)) << "a failing command is a result, not an error";
  const Json payload = test::McpClient::payload_of(result);
  EXPECT_EQ(payload["stdout"], "");
  EXPECT_NE(payload["stderr"].get<std::string>().find("No such file or directory"),
            std::string::npos)
      << payload.dump();
  EXPECT_EQ(payload["exit_code"], 2);
  const Json exit_code = execute(*host, {{"command", "exit 42"}});
  EXPECT_EQ(exit_code["exit_code"], 42);
  close_host(host);
}

TEST_P(ExecTest, ArgumentErrorsUseTheOriginalsMessages) {
  auto host = start_host();
  struct Case {
    Json arguments;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{{"command", "pwd"}, {"working_directory", "tmp"}},
       "working_directory must be an absolute path, got: tmp"},
      {{{"command", "echo a"}, {"args", {"echo", "b"}}},
       "Cannot provide both 'command' and 'args'. Use 'command' for shell commands or 'args' for "
       "direct execution."},
      {Json::object(), "Must provide either 'command' or 'args'."},
      {{{"command", ""}, {"args", Json::array()}}, "Must provide either 'command' or 'args'."},
  };
  for (const auto& c : cases) {
    const Json result = call_terminal(*host, c.arguments);
    EXPECT_TRUE(test::McpClient::is_error(result)) << c.arguments.dump() << " -> " << result.dump();
    const Json payload = test::McpClient::payload_of(result);
    EXPECT_EQ(payload.value("error", ""), c.error) << c.arguments.dump();
    EXPECT_EQ(payload.value("operation", ""), "terminal_execute");
    EXPECT_EQ(payload.value("computer_id", ""), computer_id());
  }
  close_host(host);
}

TEST_P(ExecTest, MissingWorkingDirectoryFailsTheCommandNotTheServer) {
  auto host = start_host();
  const Json result =
      call_terminal(*host, {{"command", "pwd"}, {"working_directory", "/does/not/exist"}});
  const Json payload = test::McpClient::payload_of(result);
  // The original reported the engine's failure as a non-zero exit; either form must say why.
  const std::string text = payload.dump();
  EXPECT_NE(text.find("/does/not/exist"), std::string::npos) << text;
  if (!test::McpClient::is_error(result)) {
    EXPECT_NE(payload["exit_code"], 0) << text;
  }
  EXPECT_EQ(execute(*host, {{"command", "echo still-serving"}})["stdout"], "still-serving\n");
  close_host(host);
}

TEST_P(ExecTest, BusyboxComputerWithAnotherShell) {
  HostOptions options;
  options.image = kBusyboxImage;
  options.shell = "/bin/sh";
  // As in the original, a custom image needs its own description of the computer.
  options.extra_args = {"--tool-instruction-override", "A minimal BusyBox shell."};
  auto host = start_host(options);
  const Json payload = execute(*host, {{"command", "echo $0; seq 3 | wc -l"}});
  EXPECT_EQ(payload["stdout"], "/bin/sh\n3\n");
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(ExecTest);

}  // namespace
}  // namespace vc::integration
