// exec_kill_test.cpp — a command that runs too long or prints too much is stopped, with the
// original's markers, and KILLED inside the computer: nothing of it is left running (the
// original only killed its local docker CLI).
#include <algorithm>

#include "engine_test.h"

namespace vc::integration {
namespace {

class ExecKillTest : public EngineTest {};

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += name + " ";
  return text;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST_P(ExecKillTest, TimeoutReturns124AndLeavesNoProcess) {
  auto host = start_host();
  const Json result = call_terminal(*host, {{"command", "sleep 1000"}, {"timeout", 2}});
  ASSERT_FALSE(test::McpClient::is_error(result)) << result.dump();
  const Json payload = test::McpClient::payload_of(result);
  EXPECT_EQ(payload["exit_code"], 124);
  EXPECT_EQ(payload["stdout"], "");
  EXPECT_EQ(payload["stderr"], "[kilntainers: command timed out after 2s]");

  ASSERT_TRUE(engine().container_running(container_name()));
  const auto left = wait_until_process_gone("sleep");
  EXPECT_FALSE(contains(left, "sleep")) << "processes in the computer: " << joined(left);

  // The computer still works afterwards.
  EXPECT_EQ(execute(*host, {{"command", "echo after"}})["stdout"], "after\n");
  close_host(host);
}

TEST_P(ExecKillTest, TimeoutKillsTheWholeProcessGroup) {
  auto host = start_host();
  // Background children and a subshell: all in the command's process group.
  const Json payload = execute(
      *host, {{"command", "sleep 1001 & (sleep 1002; true) & sleep 1003; wait"}, {"timeout", 2}});
  EXPECT_EQ(payload["exit_code"], 124);
  ASSERT_TRUE(engine().container_running(container_name()));
  const auto left = wait_until_process_gone("sleep");
  EXPECT_FALSE(contains(left, "sleep")) << "processes in the computer: " << joined(left);
  close_host(host);
}

TEST_P(ExecKillTest, OutputLimitReturnsTheMarkerAndKillsTheCommand) {
  constexpr int kLimit = 2'097'152;  // the default, stated so the marker text is certain
  HostOptions options;
  options.extra_args = {"--output-limit", std::to_string(kLimit)};
  auto host = start_host(options);
  // 10 MB of output, then a sleep that only a kill ends before the call's timeout.
  const Json payload = execute(
      *host, {{"command", "yes vc-output-limit | head -c 10485760; exec sleep 1000"}, {"timeout", 120}});
  EXPECT_EQ(payload["exit_code"], 1);
  EXPECT_EQ(payload["stdout"], "");
  EXPECT_EQ(payload["stderr"],
            "[kilntainers: output limit exceeded (2097152 bytes). Command terminated. No output "
            "returned. Re-run with head, tail, or grep to manage output size.]");

  ASSERT_TRUE(engine().container_running(container_name()));
  const auto left = wait_until_process_gone("sleep");
  EXPECT_FALSE(contains(left, "sleep")) << "processes in the computer: " << joined(left);
  EXPECT_FALSE(contains(left, "yes")) << "processes in the computer: " << joined(left);
  EXPECT_FALSE(contains(left, "head")) << "processes in the computer: " << joined(left);
  EXPECT_EQ(execute(*host, {{"command", "echo after"}})["stdout"], "after\n");
  close_host(host);
}

TEST_P(ExecKillTest, OutputJustUnderTheLimitIsReturnedWhole) {
  HostOptions options;
  options.extra_args = {"--output-limit", "100000"};
  auto host = start_host(options);
  const Json payload = execute(*host, {{"command", "head -c 60000 /dev/zero | tr '\\0' a; "
                                                   "head -c 39000 /dev/zero | tr '\\0' b >&2"}});
  EXPECT_EQ(payload["exit_code"], 0);
  EXPECT_EQ(payload["stdout"], std::string(60000, 'a'));
  EXPECT_EQ(payload["stderr"], std::string(39000, 'b'));
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(ExecKillTest);

}  // namespace
}  // namespace vc::integration
