// exec_agent_test.cpp — the exec agent of the real plugins in real computers
// (docs/exec-agent.md): that commands really go through it, in Debian and busybox images; many
// commands at once; the output limit, a daemon, cancel and timeout; the computer restarted
// under a command; the agent killed, outdated, or misbehaving; and the fall back to the
// engine's exec where it cannot run. The exec and file suites run through it by default and once
// more through the engine's exec (tests/integration/CMakeLists.txt).
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include <vc_exec_agent/frames.h>

#include "engine_test.h"

namespace vc::integration {
namespace {

constexpr const char* kAgentPath = "/.mcp-virtual-computer/vc-exec-agent";
// Prints the path of the program that started the shell: the agent, or not.
constexpr const char* kParentProgram = "readlink /proc/$PPID/exe";

std::filesystem::path agent_beside_plugin() {
  return std::filesystem::path(VC_PLUGIN_DIR) / "exec-agent" / "vc-exec-agent";
}

// The version the plugin's own agent reports (vc-exec-agent --version).
std::string plugin_agent_version() {
  const auto result = test::run_command({agent_beside_plugin().string(), "--version"});
  return test::trim_trailing(result.out);
}

// `bytes` as a printf(1) format that prints exactly them.
std::string printf_format(const std::string& bytes) {
  std::string format;
  char escape[8];
  for (unsigned char byte : bytes) {
    std::snprintf(escape, sizeof escape, "\\%03o", byte);
    format += escape;
  }
  return format;
}

std::string hello_frame(const std::string& version) {
  const Json hello = {{"agent", "vc-exec-agent"}, {"version", version},
                      {"protocol", exec_agent::kProtocolVersion}, {"pid", 1}, {"uid", 0}};
  return exec_agent::encode_frame(exec_agent::FrameType::kHello, 0, hello.dump());
}

class ExecAgentTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped()) return;
    if (exec_agent_mode() == std::string("off")) GTEST_SKIP() << "this run has the agent off";
    ASSERT_TRUE(std::filesystem::exists(agent_beside_plugin()))
        << agent_beside_plugin() << " was not built beside the plugin";
  }

  // Runs `script` in the computer with the engine's CLI (the outside view), stdin given.
  test::CommandResult in_computer(const std::string& script, const std::string& stdin_data = {}) {
    std::vector<std::string> argv = {engine().cli, "exec", "-i", container_name(), "sh", "-c",
                                     script};
    return test::run_command(argv, 60s, stdin_data, engine().cli_environment);
  }

  // Ends the agent running in the computer and puts `script` where the program lives, as a
  // stand-in the next command starts.
  void plant_fake_agent(const std::string& script) {
    const std::string path = kAgentPath;
    const auto planted = in_computer(
        "for p in /proc/[0-9]*; do [ \"$(readlink $p/exe)\" = " + path +
            " ] && kill -9 ${p#/proc/}; done; mkdir -p /.mcp-virtual-computer && cat > " + path +
            ".new && chmod 555 " + path + ".new && mv -f " + path + ".new " + path,
        script);
    ASSERT_TRUE(planted.ok()) << planted.describe({"exec", "plant fake agent"});
    std::this_thread::sleep_for(500ms);  // the plugin sees the old agent's stream end
  }

  Json request_in(const std::string& command, std::int64_t timeout_ms = 60'000) {
    Json request = exec_request(computer_id(), command);
    request["timeout_ms"] = timeout_ms;
    return request;
  }
};

TEST_P(ExecAgentTest, CommandsRunThroughTheAgentAndTheEnginesExecWhenOff) {
  auto host = start_host();
  const Json through_agent = execute(*host, {{"command", kParentProgram}});
  EXPECT_EQ(through_agent["stdout"], std::string(kAgentPath) + "\n");
  // The file tools run their scripts the same way.
  const Json written = test::McpClient::payload_of(host->call_tool(
      "write_file", {{"path", "/workspace/agent.txt"}, {"content", "via the agent\n"}}));
  EXPECT_FALSE(written.contains("error")) << written.dump();
  const Json read = test::McpClient::payload_of(host->call_tool("read_file", {{"path", "/workspace/agent.txt"}}));
  EXPECT_EQ(read["content"], "via the agent\n") << read.dump();
  close_host(host);

  HostOptions off;
  off.extra_args = {"--exec-agent", "off"};
  auto engine_exec = start_host(off);
  const Json through_engine = execute(*engine_exec, {{"command", kParentProgram}});
  // The engine's exec starts the shell from outside the computer: it has no parent in it.
  EXPECT_EQ(through_engine["stdout"], "");
  EXPECT_EQ(through_agent["exit_code"], 0);
  close_host(engine_exec);
}

TEST_P(ExecAgentTest, TheAgentIsRootOwnedAndReadOnly) {
  auto host = start_host();
  execute(*host, {{"command", "true"}});
  const Json mode = execute(*host, {{"command", std::string("stat -c '%U %a' ") + kAgentPath +
                                                    " /.mcp-virtual-computer"}});
  EXPECT_EQ(mode["stdout"], "root 555\nroot 755\n");
  close_host(host);
}

TEST_P(ExecAgentTest, ABusyboxComputerRunsThroughTheAgentToo) {
  auto backend = open_backend({{"image", kBusyboxImage}});
  Json create = create_request(computer_id());
  create["image"] = kBusyboxImage;
  create["shell"] = "/bin/sh";
  ASSERT_TRUE(backend->run("create", create).ok());
  Json exec = request_in(kParentProgram);
  exec["shell"] = "/bin/sh";
  const auto result = backend->run("exec", exec);
  ASSERT_TRUE(result.ok()) << result.describe();
  EXPECT_EQ(result.out, std::string(kAgentPath) + "\n");
}

TEST_P(ExecAgentTest, TwentyCommandsAtOnceGetTheirOwnOutput) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  std::vector<std::shared_ptr<test::PendingOp>> ops;
  for (int i = 0; i < 20; ++i) {
    const std::string command = "for n in 1 2 3; do echo " + std::to_string(i) +
                                "-$n; echo e" + std::to_string(i) + " >&2; done; exit " +
                                std::to_string(i % 7);
    ops.push_back(backend->start("exec", request_in(command)));
  }
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(ops[i]->wait(120s)) << "command " << i << " did not finish";
    const auto outcome = ops[i]->outcome();
    ASSERT_TRUE(outcome.ok()) << outcome.describe();
    const std::string n = std::to_string(i);
    EXPECT_EQ(outcome.out, n + "-1\n" + n + "-2\n" + n + "-3\n");
    EXPECT_EQ(outcome.err, "e" + n + "\ne" + n + "\ne" + n + "\n");
    EXPECT_EQ(outcome.document["exit_code"], i % 7);
  }
}

TEST_P(ExecAgentTest, FiftyMegabytesAreCutAtTheLimitAndTheCommandIsKilled) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  Json request = request_in("head -c 52428800 /dev/zero; exec sleep 1000");
  request["output_limit"] = 1'048'576;
  const auto result = backend->run("exec", request);
  ASSERT_TRUE(result.ok()) << result.describe();
  EXPECT_EQ(result.document["outcome"], "output_limit_exceeded");
  EXPECT_EQ(result.out.size(), 1'048'576u);
  const auto left = wait_until_process_gone("sleep");
  EXPECT_EQ(std::count(left.begin(), left.end(), "sleep"), 0);
}

TEST_P(ExecAgentTest, ACommandThatLeavesADaemonReturnsAtOnce) {
  auto host = start_host();
  // The background sleep keeps the command's stdout open; the call must not wait for it.
  const Json payload = execute(*host, {{"command", "sleep 300 & echo started"}, {"timeout", 60}}, 30s);
  EXPECT_EQ(payload["stdout"], "started\n");
  EXPECT_EQ(payload["exit_code"], 0);
  EXPECT_LT(payload["exec_duration_ms"].get<int>(), 5000) << payload.dump();
  const auto names = engine().process_names(container_name());
  EXPECT_NE(std::find(names.begin(), names.end(), "sleep"), names.end())
      << "the daemon goes on running";
  close_host(host);
}

TEST_P(ExecAgentTest, CancelAndTimeoutLeaveNothingRunning) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  auto running = backend->start("exec", request_in("sleep 1001 & sleep 1002; wait"));
  std::this_thread::sleep_for(1s);
  backend->cancel(*running);
  ASSERT_TRUE(running->wait(30s));
  EXPECT_EQ(running->outcome().status, VC_E_CANCELLED) << running->outcome().describe();
  auto left = wait_until_process_gone("sleep");
  EXPECT_EQ(std::count(left.begin(), left.end(), "sleep"), 0);

  const auto timed = backend->run("exec", request_in("trap '' TERM; sleep 1003", 1000));
  ASSERT_TRUE(timed.ok()) << timed.describe();
  EXPECT_EQ(timed.document["outcome"], "timed_out");
  left = wait_until_process_gone("sleep");
  EXPECT_EQ(std::count(left.begin(), left.end(), "sleep"), 0);
}

TEST_P(ExecAgentTest, ARestartUnderACommandIsAClearErrorAndTheNextCommandWorks) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  auto running = backend->start("exec", request_in("sleep 60"));
  std::this_thread::sleep_for(1s);
  const auto restarted = engine().run_cli({"restart", "-t", "1", container_name()});
  ASSERT_TRUE(restarted.ok()) << restarted.describe({"restart"});
  ASSERT_TRUE(running->wait(60s));
  const auto outcome = running->outcome();
  EXPECT_FALSE(outcome.ok()) << outcome.describe();
  const bool clear = outcome.message.find("died during command execution") != std::string::npos ||
                     outcome.message.find("Lost the command's output stream") != std::string::npos;
  EXPECT_TRUE(clear) << outcome.message;
  const auto next = backend->run("exec", request_in("echo again"));
  ASSERT_TRUE(next.ok()) << next.describe();
  EXPECT_EQ(next.out, "again\n");
}

TEST_P(ExecAgentTest, AKilledAgentIsReplacedByTheNextCommand) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  const auto first = backend->run("exec", request_in("echo $PPID"));
  ASSERT_TRUE(first.ok()) << first.describe();
  const auto killed = in_computer("kill -9 " + test::trim_trailing(first.out));
  ASSERT_TRUE(killed.ok()) << killed.describe({"exec", "kill"});
  std::this_thread::sleep_for(500ms);
  const auto second = backend->run("exec", request_in("echo $PPID"));
  ASSERT_TRUE(second.ok()) << second.describe();
  EXPECT_NE(second.out, first.out) << "a new agent answers";
}

TEST_P(ExecAgentTest, AnOutdatedAgentIsReplaced) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  plant_fake_agent("#!/bin/sh\nprintf '" + printf_format(hello_frame("sha256-old")) +
                   "'\ncat > /dev/null\n");
  const auto result = backend->run("exec", request_in(kParentProgram));
  ASSERT_TRUE(result.ok()) << result.describe();
  EXPECT_EQ(result.out, std::string(kAgentPath) + "\n");
  // The program in the computer is now the plugin's own.
  std::ifstream file(agent_beside_plugin(), std::ios::binary);
  const std::string program((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto copied = in_computer(std::string("cat ") + kAgentPath);
  ASSERT_TRUE(copied.ok());
  EXPECT_TRUE(copied.out == program) << "the outdated agent was not replaced";
  bool logged = false;
  for (const auto& line : backend->log_lines()) {
    logged = logged || line.find("the agent in it is version sha256-old") != std::string::npos;
  }
  EXPECT_TRUE(logged);
}

TEST_P(ExecAgentTest, AnAgentThatBreaksItsProtocolFailsTheCommandClearlyAndNothingElse) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
  const std::string version = plugin_agent_version();
  ASSERT_EQ(version.rfind("sha256-", 0), 0u) << "vc-exec-agent --version said: " << version;
  // Right hello; then, once a command arrives, output for an id nobody asked for and a frame
  // header announcing 2 GiB.
  std::string garbage = exec_agent::encode_frame(exec_agent::FrameType::kStdout, 4242, "x");
  garbage += std::string("\x7f\xff\xff\xff\x00\x00\x00\x01\x12", 9);
  plant_fake_agent("#!/bin/sh\nprintf '" + printf_format(hello_frame(version)) +
                   "'\nhead -c 9 > /dev/null\nprintf '" + printf_format(garbage) +
                   "'\nsleep 30\n");
  const auto broken = backend->run("exec", request_in("echo never"));
  ASSERT_TRUE(broken.completed) << broken.describe();
  EXPECT_EQ(broken.status, VC_E_FAILED) << broken.describe();
  EXPECT_NE(broken.message.find("Lost the command's output stream"), std::string::npos)
      << broken.message;
  EXPECT_NE(broken.message.find("2147483647 bytes"), std::string::npos) << broken.message;
  EXPECT_EQ(broken.contract_violations, 0);

  // A stand-in that cuts its hello short: taken for a missing agent, so the real one is
  // copied in and the command runs.
  const std::string hello = hello_frame(version);
  plant_fake_agent("#!/bin/sh\nprintf '" + printf_format(hello.substr(0, hello.size() / 2)) + "'\n");
  const auto recovered = backend->run("exec", request_in(kParentProgram));
  ASSERT_TRUE(recovered.ok()) << recovered.describe();
  EXPECT_EQ(recovered.out, std::string(kAgentPath) + "\n");
}

TEST_P(ExecAgentTest, AReadOnlyComputerFallsBackToTheEnginesExecOrSaysWhy) {
  const Json read_only = {{"create-overrides", R"({"HostConfig":{"ReadonlyRootfs":true}})"}};
  {
    auto backend = open_backend(read_only);
    ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());
    const auto result = backend->run("exec", request_in(kParentProgram));
    ASSERT_TRUE(result.ok()) << result.describe();
    EXPECT_NE(result.out, std::string(kAgentPath) + "\n");
    int warnings = 0;
    for (const auto& line : backend->log_lines()) {
      if (line.find("The exec agent cannot run in computer") != std::string::npos) ++warnings;
    }
    const auto again = backend->run("exec", request_in("echo twice"));
    ASSERT_TRUE(again.ok()) << again.describe();
    EXPECT_EQ(again.out, "twice\n");
    int warnings_after = 0;
    for (const auto& line : backend->log_lines()) {
      if (line.find("The exec agent cannot run in computer") != std::string::npos) ++warnings_after;
    }
    EXPECT_EQ(warnings, 1);
    EXPECT_EQ(warnings_after, 1) << "the reason is logged once per computer";
  }
  Json strict = read_only;
  strict["exec-agent"] = "on";
  auto backend = open_backend(strict);
  const auto refused = backend->run("exec", request_in("echo never"));
  ASSERT_TRUE(refused.completed) << refused.describe();
  EXPECT_EQ(refused.status, VC_E_UNSUPPORTED) << refused.describe();
  EXPECT_NE(refused.message.find("The exec agent cannot run in computer"), std::string::npos)
      << refused.message;
}

VC_INSTANTIATE_FOR_ENGINES(ExecAgentTest);

}  // namespace
}  // namespace vc::integration
