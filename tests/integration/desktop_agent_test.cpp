// desktop_agent_test.cpp — the desktop-control extension of the real plugins against the real
// engines, through the C ABI: what a caller gets from a computer without the agent, from bad
// requests, from an agent that stopped with its computer (docs/desktop-agent.md), and from a
// shutdown while the agent types. The agent's own actions are driven end to end by
// tests/e2e/desktop_tools.mjs.
#include <thread>

#include "engine_test.h"

namespace vc::integration {
namespace {

class DesktopAgentTest : public EngineTest {
 protected:
  Json desktop_create_request() const {
    Json request = create_request(computer_id());
    request["image"] = kDesktopImage;
    request["desktop_environment"] = true;
    return request;
  }
  Json action(Json fields) const {
    fields["computer_id"] = computer_id();
    return fields;
  }
};

TEST_P(DesktopAgentTest, AHeadlessImageHasNoAgentAndSaysSo) {
  auto backend = open_backend();
  const auto created = backend->run("create", create_request(computer_id()));
  ASSERT_TRUE(created.ok()) << created.describe();
  const auto shot = backend->run("desktop_action", action({{"action", "screenshot"}}), 60s);
  ASSERT_TRUE(shot.completed) << shot.describe();
  EXPECT_EQ(shot.status, VC_E_UNSUPPORTED) << shot.describe();
  EXPECT_NE(shot.message.find("has no desktop agent"), std::string::npos) << shot.message;
  // The computer itself is untouched and still runs commands.
  const auto echoed = backend->run("exec", exec_request(computer_id(), "echo alive"));
  ASSERT_TRUE(echoed.ok()) << echoed.describe();
  EXPECT_EQ(echoed.out, "alive\n");
}

TEST_P(DesktopAgentTest, BadRequestsAreClearErrorsAndTheAgentKeepsServing) {
  ASSERT_TRUE(engine().image_present(kDesktopImage))
      << "the " << engine().name << " engine has no " << kDesktopImage
      << " (scripts/test.sh builds it through the plugins)";
  auto backend = open_backend();
  const auto created = backend->run("create", desktop_create_request(), 180s);
  ASSERT_TRUE(created.ok()) << created.describe();

  const auto no_action = backend->run("desktop_action", Json{{"computer_id", computer_id()}});
  EXPECT_EQ(no_action.status, VC_E_INVALID_ARGUMENT) << no_action.describe();
  EXPECT_NE(no_action.message.find("action"), std::string::npos) << no_action.message;

  const auto unknown = backend->run("desktop_action", action({{"action", "levitate"}}), 60s);
  EXPECT_EQ(unknown.status, VC_E_INVALID_ARGUMENT) << unknown.describe();
  EXPECT_NE(unknown.message.find("levitate"), std::string::npos) << unknown.message;

  const auto off_screen = backend->run(
      "desktop_action", action({{"action", "click"}, {"x", 99999}, {"y", 1}, {"button", "left"}}));
  EXPECT_EQ(off_screen.status, VC_E_INVALID_ARGUMENT) << off_screen.describe();
  EXPECT_NE(off_screen.message.find("outside"), std::string::npos) << off_screen.message;

  const auto wrong_type = backend->run("desktop_action",
                                       action({{"action", "pointer_move"}, {"x", "left"}, {"y", 1}}));
  EXPECT_EQ(wrong_type.status, VC_E_INVALID_ARGUMENT) << wrong_type.describe();

  const auto screen = backend->run("desktop_action", action({{"action", "screen"}}));
  ASSERT_TRUE(screen.ok()) << screen.describe();
  EXPECT_EQ(screen.document.value("width", 0), 1280);
  EXPECT_EQ(screen.document.value("height", 0), 800);
}

TEST_P(DesktopAgentTest, ARestartEndsTheAgentAndTheNextActionStartsAnother) {
  ASSERT_TRUE(engine().image_present(kDesktopImage))
      << "the " << engine().name << " engine has no " << kDesktopImage
      << " (scripts/test.sh builds it through the plugins)";
  auto backend = open_backend();
  const auto created = backend->run("create", desktop_create_request(), 180s);
  ASSERT_TRUE(created.ok()) << created.describe();
  const auto before = backend->run("desktop_action", action({{"action", "cursor_position"}}));
  ASSERT_TRUE(before.ok()) << before.describe();

  const auto restarted = backend->run("restart", Json{{"computer_id", computer_id()}}, 180s);
  ASSERT_TRUE(restarted.ok()) << restarted.describe();
  // The agent of the old container is gone; one action may still see that, the next must work.
  auto after = backend->run("desktop_action", action({{"action", "screen"}}), 60s);
  if (!after.ok()) {
    EXPECT_EQ(after.status, VC_E_UNAVAILABLE) << after.describe();
    after = backend->run("desktop_action", action({{"action", "screen"}}), 60s);
  }
  ASSERT_TRUE(after.ok()) << after.describe();
  EXPECT_EQ(after.document.value("width", 0), 1280);
}

TEST_P(DesktopAgentTest, AShutdownWhileTheAgentTypesCancelsTheActionAndTheNextInstanceDrivesIt) {
  ASSERT_TRUE(engine().image_present(kDesktopImage))
      << "the " << engine().name << " engine has no " << kDesktopImage
      << " (scripts/test.sh builds it through the plugins)";
  {
    auto backend = open_backend();
    const auto created = backend->run("create", desktop_create_request(), 180s);
    ASSERT_TRUE(created.ok()) << created.describe();
  }
  // The host's shutdown, as the driver's destructor does it: cancel what is pending (the
  // cancel ends the typing agent's process group), wait for it, destroy the instance, while
  // the kill's engine calls are still under way.
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    auto backend = open_backend();
    auto typing = backend->start(
        "desktop_action",
        action({{"action", "type"}, {"text", std::string(400, 'y')}, {"delay_ms", 20}}));
    std::this_thread::sleep_for(1500ms);
    ASSERT_FALSE(typing->done()) << "400 characters 20 ms apart take 8 s: "
                                 << typing->outcome().describe();
    backend.reset();
    EXPECT_EQ(typing->outcome().status, VC_E_CANCELLED) << typing->outcome().describe();
  }
  auto backend = open_backend();
  const auto position = backend->run("desktop_action", action({{"action", "cursor_position"}}), 60s);
  ASSERT_TRUE(position.ok()) << position.describe();
}

VC_INSTANTIATE_FOR_ENGINES(DesktopAgentTest);

}  // namespace
}  // namespace vc::integration
