// restore_fault_test.cpp — an engine failure part-way through restoring a checkpoint leaves the
// computer as it was: never without a container, never under another name. The plugin talks to
// the engine through a proxy (engine_fault_proxy.h) that drops the answer of one chosen call of
// the restore; the next restore, with the engine well again, succeeds.
#include "engine_test.h"
#include "fault_support.h"

namespace vc::integration {
namespace {

using fault::Fault;
using fault::FaultRule;

class RestoreFaultTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    socket_dir_ = std::make_unique<test::TempDirectory>("vc-fault-proxy");
    proxy_ = std::make_unique<fault::EngineFaultProxy>(socket_dir_->path().string(),
                                                       engine().socket_path,
                                                       std::vector<FaultRule>{});
    backend_ = open_backend({{engine().address_option, proxy_->address()}});
    ASSERT_TRUE(backend_->run("create", create_request(computer_id())).ok());
    write_state("saved");
    const auto taken = backend_->run("create_checkpoint",
                                     {{"computer_id", computer_id()}, {"name", "good"}});
    ASSERT_TRUE(taken.ok()) << taken.describe();
    write_state("current");
  }
  void TearDown() override {
    backend_.reset();
    proxy_.reset();
    EngineTest::TearDown();
  }

  void write_state(const std::string& text) {
    const auto wrote = backend_->run(
        "exec", exec_request(computer_id(), "echo " + text + " > /workspace/state.txt"));
    ASSERT_TRUE(wrote.ok()) << wrote.describe();
  }
  // Read from outside the plugin: the engine's own exec, on the computer's own name.
  std::string state_from_outside() const {
    return engine().run_cli({"exec", container_name(), "cat", "/workspace/state.txt"}).out;
  }
  std::string container_id() const {
    const auto inspected = engine().inspect_container(container_name());
    return inspected ? inspected->value("Id", "") : "";
  }

  // Spoils the first request matching the rule, restores, and checks the computer is untouched.
  void expect_restore_failure_leaves_it_as_it_was(FaultRule rule) {
    const std::string before = container_id();
    ASSERT_FALSE(before.empty());
    rule.times = 1;
    const int served = proxy_->faults_served();
    proxy_->add_rule(rule);
    const auto failed = backend_->run("restore_checkpoint",
                                      {{"computer_id", computer_id()}, {"name", "good"}});
    ASSERT_EQ(proxy_->faults_served(), served + 1) << "the fault was met";
    ASSERT_FALSE(failed.ok()) << failed.describe();
    EXPECT_NE(failed.message.find("Restoring checkpoint 'good'"), std::string::npos)
        << failed.message;
    EXPECT_NE(failed.message.find("left as it was"), std::string::npos) << failed.message;

    EXPECT_EQ(container_id(), before) << "the same container, under the computer's name";
    EXPECT_TRUE(engine().container_running(container_name()));
    EXPECT_FALSE(engine().inspect_container(container_name() + ".replaced").has_value());
    EXPECT_EQ(state_from_outside(), "current\n");
    const auto ran = backend_->run("exec", exec_request(computer_id(), "cat /workspace/state.txt"));
    ASSERT_TRUE(ran.ok()) << ran.describe();
    EXPECT_EQ(ran.out, "current\n");
  }
  void expect_restore_works_again() {
    const auto restored = backend_->run("restore_checkpoint",
                                        {{"computer_id", computer_id()}, {"name", "good"}});
    ASSERT_TRUE(restored.ok()) << restored.describe();
    EXPECT_EQ(state_from_outside(), "saved\n");
  }

  std::unique_ptr<test::TempDirectory> socket_dir_;
  std::unique_ptr<fault::EngineFaultProxy> proxy_;
  std::unique_ptr<test::BackendDriver> backend_;
};

TEST_P(RestoreFaultTest, TheNewContainerFailingToStartPutsTheOldOneBack) {
  expect_restore_failure_leaves_it_as_it_was(
      {"POST", container_name() + "/start", Fault::kCloseWithoutAnswer});
  expect_restore_works_again();
}

TEST_P(RestoreFaultTest, TheNewContainerFailingToBeCreatedPutsTheOldOneBack) {
  expect_restore_failure_leaves_it_as_it_was(
      {"POST", "/containers/create", Fault::kCloseWithoutAnswer});
  expect_restore_works_again();
}

TEST_P(RestoreFaultTest, TheOldContainerFailingToBeSetAsideStartsItAgain) {
  expect_restore_failure_leaves_it_as_it_was({"POST", "/rename", Fault::kCloseWithoutAnswer});
  expect_restore_works_again();
}

VC_INSTANTIATE_FOR_ENGINES(RestoreFaultTest);

}  // namespace
}  // namespace vc::integration
