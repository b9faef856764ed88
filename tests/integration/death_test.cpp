// death_test.cpp — a computer killed from outside is noticed: over stdio the host then exits
// (docs/compatibility.md, "When the computer dies"), saying why in its log; over HTTP it keeps
// serving and later calls say the
// computer died.
#include <thread>

#include "engine_test.h"
#include "http_host.h"

namespace vc::integration {
namespace {

class DeathTest : public EngineTest {};

TEST_P(DeathTest, KillFromOutsideEndsTheStdioHost) {
  auto host = start_host();
  execute(*host, {{"command", "true"}});  // the computer exists and is watched from here on

  const auto killed = engine().run_cli({"kill", container_name()});
  ASSERT_TRUE(killed.ok()) << killed.describe({"kill", container_name()});

  const auto status = host->wait_for_exit(60s);
  ASSERT_TRUE(status.has_value()) << "the host kept running after its computer was killed\n"
                                  << host->diagnostics();
  EXPECT_NE(host->stderr_text().find("died"), std::string::npos) << host->diagnostics();
}

TEST_P(DeathTest, WaitForDeathReportsAKillButNotARequestedStop) {
  auto backend = open_backend();
  ASSERT_TRUE(backend->run("create", create_request(computer_id())).ok());

  auto watch = backend->start("wait_for_death", {{"computer_id", computer_id()}});
  EXPECT_FALSE(watch->wait(1s)) << "reported a death of a running computer: "
                                << watch->outcome().describe();

  const auto killed = engine().run_cli({"kill", container_name()});
  ASSERT_TRUE(killed.ok()) << killed.describe({"kill", container_name()});
  ASSERT_TRUE(watch->wait(60s)) << "the kill was not reported";
  const auto outcome = watch->outcome();
  EXPECT_TRUE(outcome.ok()) << outcome.describe();
  EXPECT_TRUE(outcome.document.contains("reason")) << outcome.describe();
}

TEST_P(DeathTest, OverHttpLaterCallsSayTheComputerDiedAndTheServerKeepsServing) {
  test::HttpHostOptions options;
  options.binary = VC_HOST_BINARY;
  options.args = {"--backend", engine().backend, "--plugin-dir", VC_PLUGIN_DIR,
                  "--state-dir", "@SCRATCH@", "--image", kDebianImage};
  for (const auto& arg : engine().address_args()) options.args.push_back(arg);
  options.environment = engine().cli_environment;
  options.computer_id = computer_id();
  test::HttpHost host(options);
  const std::string session = host.open_session();
  auto call = [&](int id, const std::string& command) {
    const auto reply = host.post(
        test::request(id, "tools/call",
                      {{"name", "terminal_execute"}, {"arguments", {{"command", command}}}}),
        session);
    const auto events = reply.events();
    return events.empty() ? reply.json() : events.back();
  };
  const Json first = call(2, "echo alive");
  ASSERT_EQ(first["result"]["structuredContent"]["stdout"], "alive\n") << first.dump();

  const auto killed = engine().run_cli({"kill", container_name()});
  ASSERT_TRUE(killed.ok()) << killed.describe({"kill", container_name()});

  // The death watch notices on its own; from then on calls are refused with the reason.
  std::string error;
  for (int attempt = 0; attempt < 60 && error.find("died") == std::string::npos; ++attempt) {
    std::this_thread::sleep_for(500ms);
    const Json later = call(10 + attempt, "echo after");
    error = later["result"]["structuredContent"].value("error", "");
  }
  EXPECT_NE(error.find("died during command execution"), std::string::npos) << error;
  EXPECT_TRUE(host.process().running());
  EXPECT_EQ(host.request("GET", "/healthz", {}).status, 200);
  const auto stopped = host.stop();
  EXPECT_TRUE(stopped.exited && stopped.code == 0) << stopped.describe();
}

VC_INSTANTIATE_FOR_ENGINES(DeathTest);

}  // namespace
}  // namespace vc::integration
