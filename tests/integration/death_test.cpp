// death_test.cpp — a computer killed from outside is noticed: over stdio the host then exits
// (spec §3.6), saying why in its log.
#include "engine_test.h"

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

VC_INSTANTIATE_FOR_ENGINES(DeathTest);

}  // namespace
}  // namespace vc::integration
