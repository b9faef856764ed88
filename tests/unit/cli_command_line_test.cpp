// The command line: both phases, plugin options, validation messages and exit codes.
#include "cli/command_line.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli/config_validation.h"
#include "cli/env_flag.h"
#include "cli/plugin_options.h"
#include "cli/state_directory.h"

namespace vc::cli {
namespace {

// Sets (or unsets) environment variables for one test and restores them afterwards.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
      if (value) setenv(name, value, 1); else unsetenv(name);
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value) setenv(name.c_str(), value->c_str(), 1); else unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

// The variables the command line reads, cleared so the host's own environment cannot leak in.
ScopedEnv clean_env() {
  return ScopedEnv{{"COMPUTER_ID", nullptr}, {"NETWORK_ACCESS", nullptr},
                   {"DESKTOP_ENVIRONMENT", nullptr}, {"KILNTAINERS_AUTH_TOKEN", nullptr},
                   {"MCP_VIRTUAL_COMPUTER_AUTH_TOKEN", nullptr}, {"VC_TEST_SCRATCH", nullptr}};
}

plugins::PluginInfo process_like_plugin() {
  plugins::PluginInfo info;
  info.id = "org.example.process";
  info.name = "process";
  info.version = "1.2.3";
  info.description = "Runs commands on the host; NOT a sandbox.";
  info.path = "/plugins/vc-backend-process.so";
  info.options = {
      {VC_OPTION_STRING, "scratch-root", "Where computers live", "/tmp/scratch", "VC_TEST_SCRATCH"},
      {VC_OPTION_INTEGER, "max-things", "An integer", "4", std::nullopt},
      {VC_OPTION_NUMBER, "ratio", "A number", std::nullopt, std::nullopt},
      {VC_OPTION_BOOL, "keep", "A flag", "true", std::nullopt},
      {VC_OPTION_STRING_LIST, "extra", "Repeatable", std::nullopt, std::nullopt},
  };
  return info;
}

struct ParseRun {
  ParseOutcome outcome;
  std::string out;
  std::string err;
  const CommandLine& line() const { return *outcome.command_line; }
};

ParseRun parse(std::vector<std::string> args, const plugins::PluginInfo* plugin = nullptr,
          const std::string& reason = "no plugin in this test") {
  args.insert(args.begin(), "mcp-virtual-computer");
  std::vector<const char*> argv;
  for (const auto& arg : args) argv.push_back(arg.c_str());
  std::ostringstream out, err;
  ParseRun run;
  run.outcome = parse_command_line(static_cast<int>(argv.size()), argv.data(), plugin, reason, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

Prescan prescan(std::vector<std::string> args) {
  args.insert(args.begin(), "mcp-virtual-computer");
  std::vector<const char*> argv;
  for (const auto& arg : args) argv.push_back(arg.c_str());
  return prescan_command_line(static_cast<int>(argv.size()), argv.data());
}

void expect_config_error(const ParseRun& run, const std::string& message) {
  EXPECT_FALSE(run.outcome.command_line);
  EXPECT_EQ(run.outcome.exit_code, 1);
  EXPECT_EQ(run.err, "mcp-virtual-computer: error: " + message + "\n");
}

TEST(Prescan, FindsBackendPluginDirsAndTheSubcommand) {
  const auto env = clean_env();
  Prescan p = prescan({"--timeout", "5", "--backend", "process", "--scratch-root", "/x",
                       "--plugin-dir", "a", "--plugin-dir=b"});
  EXPECT_TRUE(p.readable);
  EXPECT_EQ(p.backend, "process");
  EXPECT_EQ(p.plugin_dirs, (std::vector<std::filesystem::path>{"a", "b"}));
  EXPECT_FALSE(p.plugins_command);
  EXPECT_FALSE(p.help_requested);

  p = prescan({"plugins", "--plugin-dir", "d"});
  EXPECT_TRUE(p.plugins_command);
  EXPECT_EQ(p.plugin_dirs, (std::vector<std::filesystem::path>{"d"}));
  EXPECT_EQ(p.backend, "docker");

  EXPECT_TRUE(prescan({"--backend", "x", "--help"}).help_requested);
  EXPECT_TRUE(prescan({"-h"}).help_requested);
  EXPECT_FALSE(prescan({"--computer-id", "plugins"}).plugins_command);
  EXPECT_FALSE(prescan({"--port", "abc"}).readable);
}

TEST(CommandLine, DefaultsAndTheDefaultComputerIdNotice) {
  const auto env = clean_env();
  const ParseRun run = parse({});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  const ServerConfig& c = run.line().config;
  EXPECT_EQ(run.line().command, Command::serve);
  EXPECT_EQ(c.transport, Transport::stdio);
  EXPECT_EQ(c.default_timeout_s, 120);
  EXPECT_EQ(c.output_limit, 2097152u);
  EXPECT_EQ(c.shell, "/bin/bash");
  EXPECT_TRUE(c.network_access);
  EXPECT_FALSE(c.desktop_environment);
  EXPECT_EQ(c.computer_id, "virtual-computer");
  EXPECT_EQ(c.backend, "docker");
  EXPECT_EQ(c.log_level, "info");
  EXPECT_FALSE(c.log_file);
  EXPECT_FALSE(c.auth_token);
  EXPECT_EQ(c.state_dir, default_state_dir());
  ASSERT_EQ(run.line().notices.size(), 1u);
  EXPECT_NE(run.line().notices[0].find("virtual-computer"), std::string::npos);
}

TEST(CommandLine, HostOptionsAreRead) {
  const auto env = clean_env();
  const ParseRun run = parse({"--timeout", "30", "--output-limit", "100", "--shell", "/bin/sh",
                         "--no-network", "--computer-id", " my-box ", "--log-level", "debug",
                         "--log-file", "/tmp/log", "--state-dir", "/tmp/state",
                         "--plugin-dir", "p1", "--plugin-dir", "p2", "--backend", "podman",
                         "--extended-tool-instruction", "more"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  const ServerConfig& c = run.line().config;
  EXPECT_EQ(c.default_timeout_s, 30);
  EXPECT_EQ(c.output_limit, 100u);
  EXPECT_EQ(c.shell, "/bin/sh");
  EXPECT_FALSE(c.network_access);
  EXPECT_EQ(c.computer_id, "my-box");
  EXPECT_EQ(c.log_level, "debug");
  EXPECT_EQ(c.log_file, std::filesystem::path("/tmp/log"));
  EXPECT_EQ(c.state_dir, std::filesystem::path("/tmp/state"));
  EXPECT_EQ(c.plugin_dirs, (std::vector<std::filesystem::path>{"p1", "p2"}));
  EXPECT_EQ(c.backend, "podman");
  EXPECT_EQ(c.extended_tool_instruction, "more");
  EXPECT_FALSE(c.tool_instruction_override);
  EXPECT_TRUE(run.line().notices.empty());
}

TEST(CommandLine, EnvironmentVariables) {
  const auto env = clean_env();
  {
    ScopedEnv set{{"COMPUTER_ID", "from-env"}, {"NETWORK_ACCESS", " Off "},
                  {"DESKTOP_ENVIRONMENT", "YES"}, {"MCP_VIRTUAL_COMPUTER_AUTH_TOKEN", "t2"}};
    const ParseRun run = parse({"--network"});
    ASSERT_TRUE(run.outcome.command_line) << run.err;
    EXPECT_EQ(run.line().config.computer_id, "from-env");
    EXPECT_FALSE(run.line().config.network_access);  // NETWORK_ACCESS wins over --network
    EXPECT_TRUE(run.line().config.desktop_environment);
    EXPECT_EQ(run.line().config.auth_token, "t2");
  }
  {
    ScopedEnv set{{"KILNTAINERS_AUTH_TOKEN", "t1"}, {"MCP_VIRTUAL_COMPUTER_AUTH_TOKEN", "t2"}};
    EXPECT_EQ(parse({}).line().config.auth_token, "t1");
    EXPECT_EQ(parse({"--auth-token", "t0"}).line().config.auth_token, "t0");
  }
  {
    ScopedEnv set{{"COMPUTER_ID", "from-env"}};
    EXPECT_EQ(parse({"--computer-id", "from-flag"}).line().config.computer_id, "from-flag");
  }
}

TEST(CommandLine, StrictBooleanEnvironment) {
  const auto env = clean_env();
  ScopedEnv set{{"NETWORK_ACCESS", "maybe"}};
  expect_config_error(parse({}),
                      "NETWORK_ACCESS must be one of true/false, 1/0, yes/no, or on/off; got 'maybe'");
  ScopedEnv desktop{{"NETWORK_ACCESS", nullptr}, {"DESKTOP_ENVIRONMENT", ""}};
  expect_config_error(parse({}),
                      "DESKTOP_ENVIRONMENT must be one of true/false, 1/0, yes/no, or on/off; got ''");
}

TEST(CommandLine, ValidationMessagesInTheOriginalsOrder) {
  const auto env = clean_env();
  expect_config_error(parse({"--host", "0.0.0.0", "--timeout", "0"}),
                      "--host is only valid with --transport http. In stdio mode, there is no "
                      "HTTP server to bind.");
  expect_config_error(parse({"--port", "9000"}),
                      "--port is only valid with --transport http. In stdio mode, there is no "
                      "HTTP server to bind.");
  expect_config_error(parse({"--session-timeout", "5"}),
                      "--session-timeout is only valid with --transport http. In stdio mode, the "
                      "session lives as long as the process.");
  EXPECT_TRUE(parse({"--host", "127.0.0.1", "--port", "8435"}).outcome.command_line);
  expect_config_error(parse({"--tool-instruction-override", "a", "--extended-tool-instruction", "b",
                             "--timeout", "0"}),
                      "Cannot use both --tool-instruction-override and --extended-tool-instruction. "
                      "Use override to replace the description entirely, or extended to append to "
                      "the backend default.");
  expect_config_error(parse({"--timeout", "0", "--output-limit", "0"}),
                      "--timeout must be at least 1 second.");
  expect_config_error(parse({"--output-limit", "-5", "--computer-id", "BAD"}),
                      "--output-limit must be at least 1 byte.");
  const std::string slug_message =
      "COMPUTER_ID must be 1-63 lowercase letters, numbers, or hyphens; it must start and end "
      "with a letter or number.";
  for (const char* bad : {"UPPER", "with space", "-leading", "trailing-", "under_score"}) {
    expect_config_error(parse({"--computer-id", bad}), slug_message);
  }
  expect_config_error(parse({"--computer-id", std::string(64, 'a')}), slug_message);
  EXPECT_TRUE(parse({"--computer-id", std::string(63, 'a')}).outcome.command_line);
  expect_config_error(parse({"--computer-id", ""}),
                      "COMPUTER_ID is required (example: COMPUTER_ID=agent-workstation).");
  for (const char* bad : {"0", "-3"}) {
    expect_config_error(parse({"--transport", "http", "--session-timeout", bad}),
                        "--session-timeout must be at least 1 second.");
  }
  expect_config_error(parse({"--max-request-bytes", "4096"}),
                      "--max-request-bytes is only valid with --transport http. In stdio mode, "
                      "messages are lines on stdin.");
  EXPECT_FALSE(parse({"--transport", "http", "--max-request-bytes", "100"}).outcome.command_line);
  EXPECT_TRUE(parse({"--transport", "http", "--max-request-bytes", "4096"}).outcome.command_line);
}

TEST(CommandLine, NonLoopbackHttpNeedsATokenOrTheOptOut) {
  const auto env = clean_env();
  const ParseRun open_http = parse({"--transport", "http", "--host", "0.0.0.0"});
  EXPECT_EQ(open_http.outcome.exit_code, 1);
  EXPECT_NE(open_http.err.find("--allow-unauthenticated-http"), std::string::npos);
  EXPECT_NE(open_http.err.find("KILNTAINERS_AUTH_TOKEN/--auth-token"), std::string::npos);
  EXPECT_TRUE(parse({"--transport", "http", "--host", "0.0.0.0", "--auth-token", "x"}).outcome.command_line);
  EXPECT_TRUE(parse({"--transport", "http", "--host", "0.0.0.0", "--allow-unauthenticated-http"})
                  .outcome.command_line);
  for (const char* loopback : {"127.0.0.1", "localhost", "::1"}) {
    const ParseRun run = parse({"--transport", "http", "--host", loopback, "--port", "9000",
                           "--session-timeout", "10"});
    ASSERT_TRUE(run.outcome.command_line) << run.err;
    EXPECT_EQ(run.line().config.transport, Transport::http);
    EXPECT_EQ(run.line().config.port, 9000);
  }
}

TEST(CommandLine, ATaskIdPrefixIsShortAndPlain) {
  const auto env = clean_env();
  const ParseRun plain = parse({"--task-id-prefix", "host_2.a"});
  ASSERT_TRUE(plain.outcome.command_line) << plain.err;
  EXPECT_EQ(plain.line().config.task_id_prefix, "host_2.a");
  EXPECT_EQ(parse({}).line().config.task_id_prefix, "");
  for (const std::string& bad : {std::string("a-b"), std::string("a b"), std::string(33, 'x'), std::string("")}) {
    const ParseRun refused = parse({"--task-id-prefix", bad});
    EXPECT_EQ(refused.outcome.exit_code, 2) << bad;
    EXPECT_NE(refused.err.find("letters, digits"), std::string::npos) << refused.err;
  }
}

TEST(CommandLine, UsageErrorsExitWithTwo) {
  const auto env = clean_env();
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--bogus"}, {"--port", "abc"}, {"--port", "70000"},
        {"--transport", "carrier-pigeon"}, {"--log-level", "loud"}, {"stray"}, {"--timeout"}}) {
    const ParseRun run = parse(args);
    EXPECT_FALSE(run.outcome.command_line) << args[0];
    EXPECT_EQ(run.outcome.exit_code, 2) << args[0];
    EXPECT_NE(run.err.find("Run with --help"), std::string::npos) << run.err;
  }
}

// The conformance suite's fixtures are served only by its test host
// (mcp-virtual-computer-conformance, tests/conformance): the product does not know the flag.
TEST(CommandLine, ConformanceFixturesIsNotAnOption) {
  const auto env = clean_env();
  const plugins::PluginInfo plugin = process_like_plugin();
  const ParseRun run = parse({"--backend", "process", "--conformance-fixtures"}, &plugin);
  EXPECT_FALSE(run.outcome.command_line);
  EXPECT_EQ(run.outcome.exit_code, 2);
  EXPECT_NE(run.err.find("--conformance-fixtures"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("Run with --help"), std::string::npos) << run.err;
}

TEST(CommandLine, HelpWithoutAPluginShowsHostOptionsAndWhy) {
  const auto env = clean_env();
  const ParseRun run = parse({"--help"}, nullptr, "no backend named 'docker' was found");
  EXPECT_FALSE(run.outcome.command_line);
  EXPECT_EQ(run.outcome.exit_code, 0);
  for (const char* text : {"--transport", "--timeout", "--output-limit", "--network", "--computer-id",
                           "--backend", "--plugin-dir", "--log-level", "--state-dir",
                           "--tool-instruction-override", "Tool description", "plugins",
                           "no backend named 'docker' was found"}) {
    EXPECT_NE(run.out.find(text), std::string::npos) << text;
  }
  EXPECT_TRUE(run.err.empty());
}

TEST(CommandLine, VersionFlag) {
  const auto env = clean_env();
  const ParseRun run = parse({"--version"});
  EXPECT_EQ(run.outcome.exit_code, 0);
  EXPECT_NE(run.out.find(std::string("mcp-virtual-computer ") + VC_HOST_VERSION), std::string::npos);
}

TEST(CommandLine, PluginsSubcommand) {
  const auto env = clean_env();
  const ParseRun run = parse({"plugins", "--plugin-dir", "/a", "--plugin-dir", "/b"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().command, Command::list_plugins);
  EXPECT_EQ(run.line().config.plugin_dirs, (std::vector<std::filesystem::path>{"/a", "/b"}));
}

TEST(CommandLine, LifecycleToolsFlag) {
  const auto env = clean_env();
  EXPECT_FALSE(parse({}).line().config.lifecycle_tools);
  EXPECT_TRUE(parse({"--lifecycle-tools"}).line().config.lifecycle_tools);
}

TEST(CommandLine, CheckpointToolsAreOnUnlessTurnedOff) {
  const auto env = clean_env();
  EXPECT_TRUE(parse({}).line().config.checkpoint_tools);
  EXPECT_FALSE(parse({"--no-checkpoint-tools"}).line().config.checkpoint_tools);
  EXPECT_FALSE(parse({"--lifecycle-tools", "--no-checkpoint-tools"}).line().config.checkpoint_tools);
}

TEST(CommandLine, ComputersCheckpointSubcommands) {
  const auto env = clean_env();
  ParseRun run = parse({"computers", "checkpoint", "box", "before-upgrade", "--json"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::checkpoint);
  EXPECT_EQ(run.line().computers.computer_id, "box");
  EXPECT_EQ(run.line().computers.checkpoint, "before-upgrade");
  EXPECT_TRUE(run.line().computers.json);

  run = parse({"computers", "checkpoints", "box"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::checkpoints);
  EXPECT_FALSE(run.line().computers.checkpoint);

  run = parse({"computers", "restore", "box", "v1.2", "--yes"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::restore);
  EXPECT_EQ(run.line().computers.checkpoint, "v1.2");
  EXPECT_TRUE(run.line().computers.yes);
  run = parse({"computers", "restore", "box", "v1.2"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_FALSE(run.line().computers.yes) << "restore asks unless --yes";

  run = parse({"computers", "fork", "box", "box-copy", "--checkpoint", "v1"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::fork);
  EXPECT_EQ(run.line().computers.computer_id, "box");
  EXPECT_EQ(run.line().computers.new_computer_id, "box-copy");
  EXPECT_EQ(run.line().computers.checkpoint, "v1");
  run = parse({"computers", "fork", "box", "box-copy"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_FALSE(run.line().computers.checkpoint) << "no --checkpoint: the current files";

  run = parse({"computers", "checkpoint-delete", "box", "v1"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::checkpoint_delete);
  EXPECT_EQ(run.line().computers.checkpoint, "v1");

  // Names, ids and the fork's target are checked before any backend is loaded or asked.
  const std::string name_rule =
      "a checkpoint name must be 1-63 letters, digits, '.', '_' or '-', starting with a letter "
      "or digit (for example \"before-upgrade\" or \"v1.2\").";
  expect_config_error(parse({"computers", "checkpoint", "box", "no spaces"}),
                      "'no spaces' is not a checkpoint name: " + name_rule);
  expect_config_error(parse({"computers", "restore", "box", ".hidden"}),
                      "'.hidden' is not a checkpoint name: " + name_rule);
  expect_config_error(parse({"computers", "checkpoint-delete", "box", std::string(64, 'a')}),
                      "'" + std::string(64, 'a') + "' is not a checkpoint name: " + name_rule);
  expect_config_error(parse({"computers", "fork", "box", "copy", "--checkpoint", "a/b"}),
                      "'a/b' is not a checkpoint name: " + name_rule);
  expect_config_error(parse({"computers", "fork", "box", "Copy"}),
                      "'Copy' is not a computer id: ids are 1-63 lowercase letters, numbers, "
                      "or hyphens, starting and ending with a letter or number.");
  expect_config_error(parse({"computers", "fork", "box", "box"}),
                      "fork needs a new computer id: 'box' is the computer being forked.");
  EXPECT_TRUE(parse({"computers", "checkpoint", "box", std::string(63, 'a')}).outcome.command_line);

  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"computers", "checkpoint", "box"},
        {"computers", "restore", "box"},
        {"computers", "fork", "box"},
        {"computers", "checkpoints"},
        {"computers", "checkpoint-delete", "box"},
        {"computers", "checkpoint", "--yes", "box", "v1"}}) {
    const ParseRun bad = parse(args);
    EXPECT_FALSE(bad.outcome.command_line) << args.back();
    EXPECT_EQ(bad.outcome.exit_code, 2) << args.back() << ": " << bad.err;
  }
}

TEST(CommandLine, ComputersSubcommands) {
  const auto env = clean_env();
  const auto plugin = process_like_plugin();
  ParseRun run = parse({"computers", "list"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().command, Command::computers);
  EXPECT_EQ(run.line().computers.action, ComputersAction::list);
  EXPECT_FALSE(run.line().computers.json);
  EXPECT_TRUE(run.line().notices.empty());

  // Host and backend options before or after the action; --json at either level.
  run = parse({"--timeout", "9", "computers", "exec", "box", "--json", "--scratch-root", "/s",
               "--stdin", "--workdir", "/tmp", "--", "sh", "-c", "echo --json"},
              &plugin);
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  const ComputersCommand& exec = run.line().computers;
  EXPECT_EQ(exec.action, ComputersAction::exec);
  EXPECT_EQ(exec.computer_id, "box");
  EXPECT_EQ(exec.argv, (std::vector<std::string>{"sh", "-c", "echo --json"}));
  EXPECT_TRUE(exec.json);
  EXPECT_TRUE(exec.forward_stdin);
  EXPECT_EQ(exec.working_directory, "/tmp");
  EXPECT_EQ(run.line().config.default_timeout_s, 9);
  EXPECT_EQ(run.line().config.backend_options["scratch-root"], "/s");

  run = parse({"computers", "reset", "box", "--yes"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::reset);
  EXPECT_TRUE(run.line().computers.yes);
  run = parse({"computers", "delete", "-y", "box"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::remove);
  EXPECT_EQ(run.line().computers.computer_id, "box");
  run = parse({"computers", "restart", "box"});
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().computers.action, ComputersAction::restart);
  EXPECT_FALSE(run.line().computers.yes);

  expect_config_error(parse({"computers", "restart", "Bad_ID"}),
                      "'Bad_ID' is not a computer id: ids are 1-63 lowercase letters, numbers, "
                      "or hyphens, starting and ending with a letter or number.");

  // Missing pieces are usage errors.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"computers"}, {"computers", "restart"}, {"computers", "exec", "box"},
        {"computers", "frobnicate"}, {"computers", "restart", "--yes", "box"}}) {
    const ParseRun bad = parse(args);
    EXPECT_FALSE(bad.outcome.command_line) << args.back();
    EXPECT_EQ(bad.outcome.exit_code, 2) << args.back() << ": " << bad.err;
  }
}

TEST(PluginOptionsOnTheCommandLine, HelpListsThemWithDefaultsAndTheDescription) {
  const auto env = clean_env();
  const auto plugin = process_like_plugin();
  const ParseRun run = parse({"--backend", "process", "--help"}, &plugin);
  EXPECT_EQ(run.outcome.exit_code, 0);
  for (const char* text : {"process backend options", "--scratch-root", "/tmp/scratch",
                           "VC_TEST_SCRATCH", "--max-things", "--keep", "--no-keep", "--extra",
                           "NOT a sandbox"}) {
    EXPECT_NE(run.out.find(text), std::string::npos) << text << "\n" << run.out;
  }
}

TEST(PluginOptionsOnTheCommandLine, ValuesAreTypedWithDefaultsAndNulls) {
  const auto env = clean_env();
  const auto plugin = process_like_plugin();
  ParseRun run = parse({"--backend", "process"}, &plugin);
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().config.backend_options,
            Json::parse(R"({"scratch-root":"/tmp/scratch","max-things":4,"ratio":null,
                            "keep":true,"extra":null})"));

  run = parse({"--scratch-root", "/s", "--max-things", "9", "--ratio", "0.5", "--no-keep",
               "--extra", "a", "--extra", "b"},
              &plugin);
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().config.backend_options,
            Json::parse(R"({"scratch-root":"/s","max-things":9,"ratio":0.5,"keep":false,
                            "extra":["a","b"]})"));

  ScopedEnv scratch{{"VC_TEST_SCRATCH", "/from-env"}};
  run = parse({}, &plugin);
  ASSERT_TRUE(run.outcome.command_line) << run.err;
  EXPECT_EQ(run.line().config.backend_options["scratch-root"], "/from-env");
}

TEST(PluginOptionsOnTheCommandLine, BadValuesAreUsageErrors) {
  const auto env = clean_env();
  const auto plugin = process_like_plugin();
  EXPECT_EQ(parse({"--max-things", "many"}, &plugin).outcome.exit_code, 2);
  EXPECT_EQ(parse({"--ratio", "x"}, &plugin).outcome.exit_code, 2);
  EXPECT_EQ(parse({"--scratch-root"}, &plugin).outcome.exit_code, 2);
}

TEST(PluginOptionsOnTheCommandLine, ClashesAndBadDeclarationsAreConfigErrors) {
  const auto env = clean_env();
  for (const auto& [decl, expected] : std::vector<std::pair<plugins::OptionDecl, std::string>>{
           {{VC_OPTION_STRING, "timeout", "", std::nullopt, std::nullopt}, "--timeout"},
           {{VC_OPTION_STRING, "no-network", "", std::nullopt, std::nullopt}, "--no-network"},
           {{VC_OPTION_BOOL, "network", "", std::nullopt, std::nullopt}, "--network"},
           {{VC_OPTION_STRING, "Bad_Name", "", std::nullopt, std::nullopt}, "Bad_Name"},
           {{VC_OPTION_INTEGER, "count", "", "ten", std::nullopt}, "'ten'"},
           {{VC_OPTION_BOOL, "flag", "", "perhaps", std::nullopt}, "'perhaps'"},
       }) {
    plugins::PluginInfo plugin = process_like_plugin();
    plugin.options = {decl};
    const ParseRun run = parse({"--help"}, &plugin);
    EXPECT_EQ(run.outcome.exit_code, 1) << decl.name;
    EXPECT_EQ(run.err.rfind("mcp-virtual-computer: error: the process backend", 0), 0u) << run.err;
    EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
  }
}

TEST(EnvFlag, ParsesStrictly) {
  for (const char* yes : {"1", "true", "YES", " on ", "True"}) EXPECT_TRUE(parse_flag_value("X", yes).value()) << yes;
  for (const char* no : {"0", "false", "No", "OFF\n"}) EXPECT_FALSE(parse_flag_value("X", no).value()) << no;
  const auto bad = parse_flag_value("NETWORK_ACCESS", "2");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message,
            "NETWORK_ACCESS must be one of true/false, 1/0, yes/no, or on/off; got '2'");
}

TEST(ConfigValidation, ComputerIdSlug) {
  for (const char* good : {"a", "0", "agent-workstation", "a-b-c", "abc123"}) EXPECT_TRUE(is_valid_computer_id(good)) << good;
  for (const char* bad : {"", "-", "a-", "-a", "A", "a_b", "a b", "a.b"}) EXPECT_FALSE(is_valid_computer_id(bad)) << bad;
}

TEST(StateDirectory, FollowsXdgStateHome) {
  ScopedEnv xdg{{"XDG_STATE_HOME", "/xdg/state"}, {"HOME", "/home/someone"}};
  EXPECT_EQ(default_state_dir(), std::filesystem::path("/xdg/state/mcp-virtual-computer"));
  ScopedEnv relative{{"XDG_STATE_HOME", "relative"}};
  EXPECT_EQ(default_state_dir(), std::filesystem::path("/home/someone/.local/state/mcp-virtual-computer"));
  EXPECT_EQ(plugin_state_dir("/s", "org.example.process"), std::filesystem::path("/s/org.example.process"));
}

}  // namespace
}  // namespace vc::cli
