// validate_plugin_test.cpp — `mcp-virtual-computer validate-plugin` run as an operator runs it:
// the real binary on real plugin files, judged by its exit code and by the named checks of its
// report (--json), not by the exit code alone.
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "command_runner.h"
#include "container_engine.h"
#include "host_environment.h"
#include "json.h"
#include "temp_directory.h"

namespace vc::test {
namespace {

using namespace std::chrono_literals;

struct ValidateRun {
  CommandResult result;
  Json report;  // the --json document; discarded when the output was not JSON
  std::map<std::string, Json> checks;  // by name

  int code() const { return result.status.exited ? result.status.code : -1; }
  std::string status_of(const std::string& name) const {
    auto found = checks.find(name);
    return found == checks.end() ? "<missing>" : found->second["status"].get<std::string>();
  }
  std::string detail_of(const std::string& name) const {
    auto found = checks.find(name);
    return found == checks.end() ? "" : found->second["detail"].get<std::string>();
  }
  std::string describe() const { return "stdout:\n" + result.out + "\nstderr:\n" + result.err; }
};

ValidateRun validate(const std::vector<std::string>& arguments, const Environment& extra = {},
             std::chrono::milliseconds timeout = 300s) {
  std::vector<std::string> argv{VC_HOST_BINARY, "validate-plugin"};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  ValidateRun run;
  run.result = run_command(argv, timeout, {}, host_environment(extra));
  run.report = Json::parse(run.result.out, nullptr, /*allow_exceptions=*/false);
  if (run.report.is_object() && run.report["checks"].is_array()) {
    for (const Json& check : run.report["checks"]) run.checks[check["name"]] = check;
  }
  return run;
}

std::string plugin(const std::string& file) {
  return (std::filesystem::path(VC_PLUGIN_DIR) / file).string();
}

// ---- the project's own plugins pass --------------------------------------------------------

class OwnPluginTest : public ::testing::TestWithParam<const char*> {};

TEST_P(OwnPluginTest, PassesEveryCheck) {
  const std::string file = plugin(GetParam());
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is not built";
  TempDirectory state("vc-validate-state");
  const ValidateRun run = validate({file, "--json", "--state-dir", state.path().string()});
  ASSERT_EQ(run.code(), 0) << run.describe();
  ASSERT_TRUE(run.report.is_object()) << run.describe();
  EXPECT_EQ(run.report["passed"], true);
  EXPECT_EQ(run.report["counts"]["fail"], 0);
  for (const auto& [name, check] : run.checks) {
    EXPECT_NE(check["status"], "fail") << name << ": " << check["detail"];
  }
  for (const char* name :
       {"load.file", "load.elf", "load.module", "descriptor.identity", "descriptor.options",
        "instance.create", "op.validate", "op.create", "op.attach", "op.list", "exec.exit-zero",
        "exec.exit-code", "exec.stdout", "exec.stderr", "exec.timeout", "exec.output-limit",
        "exec.cancel", "op.remove", "list.after-remove", "remove.idempotent",
        "contract.exactly-once", "contract.non-blocking", "instance.shutdown"}) {
    EXPECT_EQ(run.status_of(name), "pass") << name << ": " << run.detail_of(name);
  }
}

INSTANTIATE_TEST_SUITE_P(Sdk, OwnPluginTest,
                         ::testing::Values("vc-backend-template.so", "vc-backend-process.so",
                                           "vc-backend-minimal-c.so"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           name = name.substr(11, name.size() - 14);  // vc-backend-X.so -> X
                           for (char& c : name) c = c == '-' ? '_' : c;
                           return name;
                         });

TEST(ValidatePluginTest, ProcessBackendRunsTheDeclaredOperations) {
  const std::string file = plugin("vc-backend-process.so");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is not built";
  TempDirectory state("vc-validate-state");
  const ValidateRun run = validate({file, "--json", "--state-dir", state.path().string()});
  ASSERT_EQ(run.code(), 0) << run.describe();
  // It declares restart, factory reset, stdin and persistence: nothing may be skipped.
  for (const char* name : {"exec.stdin", "op.restart", "restart.keeps-files", "op.factory_reset",
                           "factory_reset.clears-files"}) {
    EXPECT_EQ(run.status_of(name), "pass") << name << ": " << run.detail_of(name);
  }
}

TEST(ValidatePluginTest, UndeclaredOperationsAreSkippedAndTheTextReportSaysSo) {
  const std::string file = plugin("vc-backend-minimal-c.so");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is not built";
  TempDirectory state("vc-validate-state");
  const ValidateRun run = validate({file, "--state-dir", state.path().string()});
  ASSERT_EQ(run.code(), 0) << run.describe();
  EXPECT_NE(run.result.out.find("PASS  exec.cancel"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("SKIP  op.restart"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("skipped (not declared)"), std::string::npos) << run.result.out;
  // Without the extensions their checks are skipped, which is no failure.
  EXPECT_NE(run.result.out.find("SKIP  extension.processes"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("SKIP  process.invalid-id"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("0 failed"), std::string::npos) << run.result.out;
  // The scratch computer (a directory in the state directory) is gone.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(state.path())) {
    EXPECT_EQ(entry.path().filename().string().rfind("vc-validate-", 0), std::string::npos)
        << entry.path();
  }
}

TEST(ValidatePluginTest, PassesDeclaredOptionsToThePlugin) {
  const std::string file = plugin("vc-backend-template.so");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is not built";
  TempDirectory state("vc-validate-state");
  TempDirectory computers("vc-validate-computers");
  const ValidateRun run = validate({file, "--json", "--state-dir", state.path().string(),
                            "--computers-dir", computers.path().string()});
  ASSERT_EQ(run.code(), 0) << run.describe();
  EXPECT_NE(run.detail_of("descriptor.options").find("--computers-dir"), std::string::npos);
  // An option the plugin does not declare is a usage error.
  const ValidateRun unknown =
      validate({file, "--state-dir", state.path().string(), "--no-such-option", "x"});
  EXPECT_EQ(unknown.code(), 2) << unknown.describe();
}

// ---- a plugin that breaks the contract fails, with the reasons -----------------------------

TEST(ValidatePluginTest, FlawedPluginFailsTheNamedChecks) {
  TempDirectory state("vc-validate-state");
  const ValidateRun run = validate({VC_FLAWED_PLUGIN, "--json", "--op-timeout", "3", "--state-dir",
                            state.path().string()});
  ASSERT_EQ(run.code(), 1) << run.describe();
  ASSERT_TRUE(run.report.is_object()) << run.describe();
  EXPECT_EQ(run.report["passed"], false);

  // What it does right.
  for (const char* name : {"load.module", "op.validate", "op.create", "op.list", "exec.stdout",
                           "op.remove"}) {
    EXPECT_EQ(run.status_of(name), "pass") << name << ": " << run.detail_of(name);
  }
  // What it does wrong, each with its reason.
  const std::map<std::string, std::string> failures = {
      {"exec.exit-zero", "completed again"},
      {"exec.exit-code", "exit code 0 (expected exited, 3)"},
      {"exec.stderr", "expected \"vc-err:"},
      {"exec.timeout", "(expected timed_out)"},
      {"exec.output-limit", "although its output was cut at the host's limit"},
      {"exec.stdin", "invalid JSON"},
      {"exec.cancel", "did not complete within"},
      {"op.restart", "declares VC_CAP_RESTART, but restart answered VC_E_UNSUPPORTED"},
      {"contract.exactly-once", "completed again"},
      {"contract.non-blocking", "(limit 1000 ms): an op function must return at once"},
      {"instance.shutdown", "never completed"},
  };
  for (const auto& [name, reason] : failures) {
    EXPECT_EQ(run.status_of(name), "fail") << name << ": " << run.detail_of(name);
    EXPECT_NE(run.detail_of(name).find(reason), std::string::npos)
        << name << ": " << run.detail_of(name);
  }
  EXPECT_EQ(run.status_of("op.factory_reset"), "skip");
  EXPECT_EQ(run.detail_of("op.factory_reset"), "skipped (not declared)");
  // Blocking is told apart from a slow completion: attach itself still passes.
  EXPECT_EQ(run.status_of("op.attach"), "pass") << run.detail_of("op.attach");
  EXPECT_NE(run.detail_of("contract.non-blocking").find("the attach call held"), std::string::npos)
      << run.detail_of("contract.non-blocking");
}

// ABI 1.1 deprecates rejecting an op: for a plugin built for 1.1 the check of the rejected op
// fails, naming the deprecation (the host itself still answers the op).
TEST(ValidatePluginTest, AOneOnePluginsSynchronousRejectionFailsItsCheck) {
  TempDirectory state("vc-validate-state");
  const ValidateRun run = validate({VC_OP_IDS_PLUGIN, "--json", "--op-timeout", "3",
                                    "--state-dir", state.path().string()});
  ASSERT_EQ(run.code(), 1) << run.describe();
  EXPECT_EQ(run.status_of("op.validate"), "pass") << run.detail_of("op.validate");
  EXPECT_EQ(run.status_of("op.create"), "fail") << run.detail_of("op.create");
  EXPECT_NE(run.detail_of("op.create")
                .find("create was rejected synchronously (status -8, VC_E_BUSY), which ABI 1.1 "
                      "deprecates"),
            std::string::npos)
      << run.detail_of("op.create");
  EXPECT_EQ(run.status_of("contract.exactly-once"), "fail")
      << run.detail_of("contract.exactly-once");
}

TEST(ValidatePluginTest, FlawedPluginTextReportNamesEachFailure) {
  TempDirectory state("vc-validate-state");
  const ValidateRun run = validate({VC_FLAWED_PLUGIN, "--op-timeout", "3", "--state-dir",
                            state.path().string()});
  ASSERT_EQ(run.code(), 1) << run.describe();
  EXPECT_NE(run.result.out.find("FAIL  exec.exit-code"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("FAIL  exec.cancel"), std::string::npos) << run.result.out;
  EXPECT_NE(run.result.out.find("the plugin FAILED validation."), std::string::npos)
      << run.result.out;
}

// A plugin only ever loaded by path may have any file name: the check says what the search
// would not find, and the plugin still passes.
TEST(ValidatePluginTest, APluginUnderAnotherFileNamePassesWithTheNameCheckSkipped) {
  const std::string file = plugin("vc-backend-minimal-c.so");
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is not built";
  TempDirectory copies("vc-validate-renamed");
  const std::filesystem::path renamed = copies.path() / "my-backend.so";
  std::filesystem::copy_file(file, renamed);
  TempDirectory state("vc-validate-state");
  const ValidateRun run =
      validate({renamed.string(), "--json", "--state-dir", state.path().string()});
  EXPECT_EQ(run.code(), 0) << run.describe();
  EXPECT_EQ(run.status_of("descriptor.file-name"), "skip") << run.describe();
  EXPECT_NE(run.detail_of("descriptor.file-name")
                .find("the file is my-backend.so, so --backend minimal-c will not find it"),
            std::string::npos)
      << run.detail_of("descriptor.file-name");
  EXPECT_EQ(run.status_of("exec.exit-zero"), "pass") << run.describe();
}

// ---- files that are no plugin --------------------------------------------------------------

TEST(ValidatePluginTest, AnExecutableIsNoPlugin) {
  const ValidateRun run = validate({"/bin/true", "--json"});
  EXPECT_EQ(run.code(), 1) << run.describe();
  EXPECT_EQ(run.status_of("load.file"), "pass");
  EXPECT_EQ(run.status_of("load.elf"), "fail") << run.describe();
  EXPECT_NE(run.result.err.find("/bin/true is not a loadable backend plugin"), std::string::npos)
      << run.result.err;
}

TEST(ValidatePluginTest, ATextFileIsNoPlugin) {
  const ValidateRun run = validate({VC_TEXT_PLUGIN, "--json"});
  EXPECT_EQ(run.code(), 1) << run.describe();
  EXPECT_EQ(run.status_of("load.elf"), "fail");
  EXPECT_NE(run.detail_of("load.elf").find("not an ELF file"), std::string::npos)
      << run.detail_of("load.elf");
}

TEST(ValidatePluginTest, AMissingFileFailsTheFileCheck) {
  const ValidateRun run = validate({"/nonexistent/vc-backend-nothing.so"});
  EXPECT_EQ(run.code(), 1) << run.describe();
  EXPECT_NE(run.result.out.find("FAIL  load.file"), std::string::npos) << run.result.out;
}

// ---- usage -----------------------------------------------------------------------------------

TEST(ValidatePluginTest, UsageErrorsExitTwo) {
  EXPECT_EQ(validate({}).code(), 2);
  const std::string file = plugin("vc-backend-minimal-c.so");
  if (std::filesystem::exists(file)) {
    EXPECT_EQ(validate({file, "--op-timeout", "0"}).code(), 2);
  }
}

TEST(ValidatePluginTest, HelpDescribesTheCommand) {
  const ValidateRun run = validate({"--help"});
  EXPECT_EQ(run.code(), 0) << run.describe();
  for (const char* text : {"--op-timeout", "--json", "--state-dir", "FILE"}) {
    EXPECT_NE(run.result.out.find(text), std::string::npos) << text << "\n" << run.result.out;
  }
}

// ---- the shipped engine plugins against their engines ----------------------------------------

bool engine_required(const std::string& name) {
  const char* value = std::getenv("VC_REQUIRE_ENGINES");
  if (value == nullptr) return false;
  std::stringstream list(value);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item == name) return true;
  }
  return false;
}

// Each shipped engine plugin passes every check, the engine's own operations included.
class ValidatePluginEngineTest : public ::testing::TestWithParam<const ContainerEngine*> {};

TEST_P(ValidatePluginEngineTest, ShippedPluginPasses) {
  const ContainerEngine& engine = *GetParam();
  const std::string file = plugin(engine.plugin_file);
  std::string missing;
  if (!std::filesystem::exists(file)) missing = file + " is not built";
  else if (!engine.socket_answers())
    missing = engine.name + " does not answer at " + engine.socket_path;
  else if (!engine.image_present("debian:bookworm-slim"))
    missing = "debian:bookworm-slim is missing";
  if (!missing.empty()) {
    if (engine_required(engine.name)) {
      FAIL() << "VC_REQUIRE_ENGINES names " << engine.name << ": " << missing;
    }
    GTEST_SKIP() << missing << " (" << engine.setup_command << ")";
  }
  TempDirectory state("vc-validate-state");
  std::vector<std::string> arguments{file, "--json", "--op-timeout", "120", "--state-dir",
                                     state.path().string(), "--image", "debian:bookworm-slim"};
  for (const auto& arg : engine.address_args()) arguments.push_back(arg);
  const ValidateRun run = validate(arguments, {}, 900s);
  ASSERT_EQ(run.code(), 0) << run.describe();
  for (const char* name : {"op.create", "exec.stdout", "exec.stderr", "exec.cancel",
                           "op.restart", "restart.keeps-files", "op.factory_reset",
                           "factory_reset.clears-files", "op.set_network_access",
                           "op.wait_for_death", "op.tool_instructions", "list.after-remove",
                           // the checkpoints extension (ABI 1.2), which these plugins offer
                           "extension.checkpoints", "op.list_checkpoints",
                           "checkpoint.invalid-name",
                           // and the processes extension (ABI 1.3)
                           "extension.processes", "op.list_processes", "process.invalid-id",
                           "contract.non-blocking"}) {
    EXPECT_EQ(run.status_of(name), "pass") << name << ": " << run.detail_of(name);
  }
}

INSTANTIATE_TEST_SUITE_P(Engines, ValidatePluginEngineTest,
                         ::testing::Values(&docker_engine(), &podman_engine()),
                         [](const ::testing::TestParamInfo<const ContainerEngine*>& param_info) {
                           return param_info.param->name;
                         });

}  // namespace
}  // namespace vc::test
