// operator_cli_test.cpp — `mcp-virtual-computer computers ...` against the real engines: the
// table and --json listings, exec's streamed output and exit codes (command's own, 124 on
// timeout), stdin forwarding, restart/reset/delete with and without confirmation.
#include <algorithm>
#include <string>
#include <vector>

#include "command_runner.h"
#include "engine_test.h"

namespace vc::integration {
namespace {

class OperatorCliTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // The computer exists once the server has run a command on it.
    auto host = start_host();
    execute(*host, {{"command", "echo original > /workspace/kept.txt"}});
    close_host(host);
  }

  // Runs `computers <arguments...>` with the test's backend options in front.
  test::CommandResult computers(const std::vector<std::string>& arguments,
                                const std::string& stdin_data = "",
                                const std::vector<std::string>& host_options = {}) {
    std::vector<std::string> argv{VC_HOST_BINARY};
    for (const auto& arg : host_args()) argv.push_back(arg);
    argv.insert(argv.end(), host_options.begin(), host_options.end());
    argv.push_back("computers");
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return test::run_command(argv, 180s, stdin_data, host_environment_for());
  }

  static Json json_of(const test::CommandResult& result) {
    const Json parsed = Json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(parsed.is_discarded()) << "not JSON: " << result.out << "\nstderr: " << result.err;
    return parsed;
  }

  std::string file_content() {
    const auto cat = computers({"exec", computer_id(), "--", "cat", "/workspace/kept.txt"});
    return cat.status.exited && cat.status.code == 0 ? cat.out : "<missing: " + cat.err + ">";
  }
};

TEST_P(OperatorCliTest, ListPrintsATableAndJsonForScripts) {
  const auto table = computers({"list"});
  ASSERT_TRUE(table.ok()) << table.describe({"computers", "list"});
  EXPECT_EQ(table.out.rfind("COMPUTER ID", 0), 0u) << table.out;
  const auto row = table.out.find("\n" + computer_id() + " ");
  ASSERT_NE(row, std::string::npos) << table.out;
  const std::string line = table.out.substr(row + 1, table.out.find('\n', row + 1) - row - 1);
  EXPECT_NE(line.find(" running "), std::string::npos) << line;

  const auto listed = computers({"list", "--json"});
  ASSERT_TRUE(listed.ok()) << listed.describe({"computers", "list", "--json"});
  const Json document = json_of(listed);
  ASSERT_TRUE(document["computers"].is_array());
  EXPECT_EQ(document["count"], document["computers"].size());
  Json mine;
  for (const auto& entry : document["computers"]) {
    if (entry["computer_id"] == computer_id()) mine = entry;
  }
  ASSERT_TRUE(mine.is_object()) << listed.out;
  EXPECT_EQ(mine["backend"], engine().backend);
  EXPECT_EQ(mine["state"], "running");
  EXPECT_EQ(mine["image"], kDebianImage);
  EXPECT_EQ(mine["temporary"], false);
  EXPECT_EQ(mine["network_access"], true);
}

TEST_P(OperatorCliTest, ExecStreamsOutputAndExitsWithTheCommandsCode) {
  const auto ran = computers({"exec", computer_id(), "--", "sh", "-c",
                              "cat /workspace/kept.txt; echo to-stderr >&2; exit 7"});
  EXPECT_TRUE(ran.status.exited);
  EXPECT_EQ(ran.status.code, 7) << ran.err;
  EXPECT_EQ(ran.out, "original\n");
  EXPECT_NE(ran.err.find("to-stderr"), std::string::npos) << ran.err;

  // Arguments are passed as they are, without a shell in between.
  const auto literal = computers({"exec", computer_id(), "--", "printf", "%s|", "a b", "$HOME"});
  EXPECT_EQ(literal.out, "a b|$HOME|") << literal.err;

  const auto piped = computers({"exec", "--stdin", computer_id(), "--", "wc", "-c"},
                               std::string(100000, 'x'));
  EXPECT_TRUE(piped.ok()) << piped.err;
  EXPECT_EQ(test::trim_trailing(piped.out), "100000");

  const auto json = computers({"--json", "exec", computer_id(), "--", "sh", "-c",
                               "echo hi; echo warn >&2; exit 3"});
  EXPECT_EQ(json.status.code, 3);
  const Json document = json_of(json);
  EXPECT_EQ(document["computer_id"], computer_id());
  EXPECT_EQ(document["exit_code"], 3);
  EXPECT_EQ(document["outcome"], "exited");
  EXPECT_EQ(document["stdout"], "hi\n");
  EXPECT_EQ(document["stderr"], "warn\n");

  const auto in_directory = computers({"exec", "--workdir", "/tmp", computer_id(), "--", "pwd"});
  EXPECT_EQ(in_directory.out, "/tmp\n") << in_directory.err;
}

TEST_P(OperatorCliTest, ExecTimeoutsAndUnknownComputersFailClearly) {
  const auto slow = computers({"exec", computer_id(), "--", "sleep", "60"}, "", {"--timeout", "1"});
  EXPECT_EQ(slow.status.code, 124) << slow.err;
  EXPECT_NE(slow.err.find("timed out after 1 s"), std::string::npos) << slow.err;
  // The command was killed, not left running.
  const auto names = wait_until_process_gone("sleep");
  EXPECT_EQ(std::find(names.begin(), names.end(), "sleep"), names.end());

  const std::string missing = another_computer_id();
  const auto unknown = computers({"exec", missing, "--", "true"});
  EXPECT_EQ(unknown.status.code, 1);
  EXPECT_NE(unknown.err.find("Computer '" + missing + "' was not found."), std::string::npos)
      << unknown.err;
  const auto unknown_json = computers({"--json", "restart", missing});
  EXPECT_EQ(unknown_json.status.code, 1);
  EXPECT_NE(json_of(unknown_json).value("error", "").find("was not found"), std::string::npos);
}

TEST_P(OperatorCliTest, ExecStartsAStoppedComputer) {
  ASSERT_TRUE(engine().run_cli({"stop", "-t", "1", container_name()}).ok());
  const auto ran = computers({"exec", computer_id(), "--", "cat", "/workspace/kept.txt"});
  EXPECT_TRUE(ran.ok()) << ran.err;
  EXPECT_EQ(ran.out, "original\n");
}

TEST_P(OperatorCliTest, RestartKeepsFilesResetAsksThenReplacesThemDeleteRemoves) {
  const auto restarted = computers({"restart", computer_id()});
  ASSERT_TRUE(restarted.ok()) << restarted.err;
  EXPECT_EQ(restarted.out.rfind("Restarted computer '" + computer_id() + "'", 0), 0u)
      << restarted.out;
  EXPECT_EQ(file_content(), "original\n");

  const auto declined = computers({"reset", computer_id()}, "n\n");
  EXPECT_EQ(declined.status.code, 1);
  EXPECT_NE(declined.err.find("[y/N]"), std::string::npos) << declined.err;
  EXPECT_NE(declined.err.find("was not changed"), std::string::npos) << declined.err;
  EXPECT_EQ(file_content(), "original\n");

  const auto no_answer = computers({"delete", computer_id()});  // stdin at EOF: no
  EXPECT_EQ(no_answer.status.code, 1);
  EXPECT_EQ(file_content(), "original\n");

  const auto reset = computers({"--json", "reset", computer_id()}, "yes\n");
  ASSERT_TRUE(reset.ok()) << reset.err;
  const Json outcome = json_of(reset);
  EXPECT_EQ(outcome["ok"], true);
  EXPECT_EQ(outcome["computer_id"], computer_id());
  EXPECT_NE(file_content().find("No such file"), std::string::npos);

  const auto deleted = computers({"--json", "delete", "--yes", computer_id()});
  ASSERT_TRUE(deleted.ok()) << deleted.err;
  EXPECT_EQ(json_of(deleted), (Json{{"ok", true}, {"computer_id", computer_id()}, {"deleted", true}}));
  EXPECT_FALSE(engine().inspect_container(container_name()).has_value());

  const auto again = computers({"delete", "-y", computer_id()});
  EXPECT_EQ(again.status.code, 1);
  EXPECT_NE(again.err.find("Computer '" + computer_id() + "' was not found."), std::string::npos)
      << again.err;
}

// An operator's undo from a shell: checkpoint, change, restore (asked first), fork, delete.
TEST_P(OperatorCliTest, CheckpointRestoreForkAndDeleteFromTheCommandLine) {
  const auto taken = computers({"checkpoint", computer_id(), "before"});
  ASSERT_TRUE(taken.ok()) << taken.describe({"checkpoint"});
  EXPECT_NE(taken.out.find("before"), std::string::npos) << taken.out;
  ASSERT_TRUE(computers({"exec", computer_id(), "--", "sh", "-c",
                         "echo changed > /workspace/kept.txt"}).ok());

  const auto table = computers({"checkpoints", computer_id()});
  ASSERT_TRUE(table.ok()) << table.err;
  EXPECT_EQ(table.out.rfind("NAME", 0), 0u) << table.out;
  EXPECT_NE(table.out.find("\nbefore "), std::string::npos) << table.out;
  const auto listed = computers({"checkpoints", computer_id(), "--json"});
  ASSERT_TRUE(listed.ok()) << listed.err;
  const Json listing = json_of(listed);
  ASSERT_EQ(listing.value("checkpoints", Json::array()).size(), 1u) << listed.out;
  EXPECT_EQ(listing["checkpoints"][0]["name"], "before");

  const auto declined = computers({"restore", computer_id(), "before"}, "n\n");
  EXPECT_EQ(declined.status.code, 1);
  EXPECT_NE(declined.err.find("[y/N]"), std::string::npos) << declined.err;
  EXPECT_EQ(file_content(), "changed\n");
  const auto restored = computers({"restore", "--yes", computer_id(), "before"});
  ASSERT_TRUE(restored.ok()) << restored.err;
  EXPECT_EQ(file_content(), "original\n");

  const std::string copy = another_computer_id();
  const auto forked = computers({"--json", "fork", computer_id(), copy, "--checkpoint", "before"});
  ASSERT_TRUE(forked.ok()) << forked.err;
  EXPECT_EQ(json_of(forked).value("computer_id", ""), copy) << forked.out;
  const auto in_copy = computers({"exec", copy, "--", "cat", "/workspace/kept.txt"});
  EXPECT_EQ(in_copy.out, "original\n") << in_copy.err;

  const auto bad = computers({"checkpoint", computer_id(), "no spaces"});
  EXPECT_EQ(bad.status.code, 1);
  EXPECT_NE(bad.err.find("letters, digits"), std::string::npos) << bad.err;
  const auto unknown = computers({"restore", "-y", computer_id(), "nope"});
  EXPECT_EQ(unknown.status.code, 1);
  EXPECT_NE(unknown.err.find("no checkpoint named 'nope'"), std::string::npos) << unknown.err;

  const auto deleted = computers({"--json", "checkpoint-delete", computer_id(), "before"});
  ASSERT_TRUE(deleted.ok()) << deleted.err;
  EXPECT_EQ(json_of(deleted).value("deleted", false), true) << deleted.out;
  EXPECT_EQ(json_of(computers({"checkpoints", computer_id(), "--json"}))
                .value("checkpoints", Json::array())
                .size(),
            0u);
}

VC_INSTANTIATE_FOR_ENGINES(OperatorCliTest);

}  // namespace
}  // namespace vc::integration
