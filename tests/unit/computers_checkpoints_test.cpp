// Tests of ComputerLifecycle's checkpoint operations over a fake backend: refusals before any
// backend op (no extension, a malformed name, a fork onto its own id), the server's computer
// acquired first, a restore of it kept from looking like a death, and the result documents
// read strictly.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vc-backend-1/vc_status.h>

#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "computers/lifecycle_reports.h"
#include "computers_fake_backend.h"

namespace vc::computers {
namespace {

using backend_proxy::Operation;
using test_support::fake_computer_info;
using test_support::FakeReply;

// What one `done` heard, and how often.
template <class T>
struct Heard {
  int calls = 0;
  std::optional<Expected<T>> value;

  std::function<void(Expected<T>)> callback() {
    return [this](Expected<T> result) {
      ++calls;
      value = std::move(result);
    };
  }
  bool ok() const { return value && value->ok(); }
  const T& result() const { return value->value(); }
  const Failure& failure() const { return value->error(); }
};

Json checkpoint_info(const std::string& name, const std::string& computer_id = "test-computer") {
  return Json{{"name", name},         {"computer_id", computer_id}, {"created", "2026-12-07T17:02:03Z"},
              {"size_bytes", 12345},  {"processes", false},         {"desktop_environment", false}};
}

Json checkpoint_result(const std::string& name, Json computer = fake_computer_info()) {
  return Json{{"checkpoint", checkpoint_info(name)}, {"computer", std::move(computer)}};
}

class CheckpointLifecycleTest : public test_support::FakeBackendTest {
 protected:
  void SetUp() override {
    FakeBackendTest::SetUp();
    backend_->set_checkpoints(true);
    settings_.computer_id = test_support::kFakeComputerId;
    registry_ = std::make_unique<ComputerRegistry>(backend_, settings_);
    lifecycle_ = std::make_unique<ComputerLifecycle>(backend_, settings_, registry_.get());
    registry_->set_death_handler([this](const std::string& message) { deaths_.push_back(message); });
  }

  void release_users() override {
    lifecycle_.reset();
    registry_.reset();
  }

  void acquire() {
    Heard<ComputerInfo> acquired;
    registry_->acquire({}, acquired.callback());
    run();
    ASSERT_TRUE(acquired.ok());
  }

  ComputerSettings settings_;
  std::unique_ptr<ComputerRegistry> registry_;
  std::unique_ptr<ComputerLifecycle> lifecycle_;
  std::vector<std::string> deaths_;
};

TEST_F(CheckpointLifecycleTest, ABackendWithoutCheckpointsRefusesAtOnceWithoutAnyOp) {
  backend_->set_checkpoints(false);
  EXPECT_FALSE(lifecycle_->offers_checkpoints());
  Heard<CheckpointOutcome> created;
  lifecycle_->create_checkpoint("box", "v1", {}, created.callback());
  Heard<CheckpointListing> listed;
  lifecycle_->list_checkpoints(std::nullopt, listed.callback());
  Heard<CheckpointOutcome> restored;
  lifecycle_->restore_checkpoint("box", "v1", {}, restored.callback());
  Heard<CheckpointOutcome> forked;
  lifecycle_->fork_checkpoint(ForkSpec{"box", "copy", std::nullopt}, {}, forked.callback());
  Heard<bool> deleted;
  lifecycle_->delete_checkpoint("box", "v1", deleted.callback());
  for (const Failure* failure : {&created.failure(), &listed.failure(), &restored.failure(),
                                 &forked.failure(), &deleted.failure()}) {
    EXPECT_EQ(failure->status, VC_E_UNSUPPORTED);
    EXPECT_EQ(failure->message,
              "The Fake backend backend has no checkpoints: it cannot save or restore a "
              "computer's files.");
  }
  run();
  EXPECT_TRUE(backend_->all_started().empty()) << "not even the server's computer is acquired";
}

TEST_F(CheckpointLifecycleTest, AMalformedNameIsRefusedBeforeTheBackendIsAsked) {
  for (const std::string& name : {std::string(), std::string("a b"), std::string("-lead"),
                                  std::string(".hidden"), std::string("a/b"), std::string(64, 'x'),
                                  std::string("caf\xc3\xa9")}) {
    Heard<CheckpointOutcome> created;
    lifecycle_->create_checkpoint("box", name, {}, created.callback());
    ASSERT_EQ(created.calls, 1) << name;
    EXPECT_EQ(created.failure().status, VC_E_INVALID_ARGUMENT) << name;
    EXPECT_NE(created.failure().message.find("is not a checkpoint name: a checkpoint name must "
                                             "be 1-63 letters"),
              std::string::npos)
        << created.failure().message;
    Heard<CheckpointOutcome> restored;
    lifecycle_->restore_checkpoint(std::nullopt, name, {}, restored.callback());
    EXPECT_EQ(restored.failure().status, VC_E_INVALID_ARGUMENT) << name;
    Heard<bool> deleted;
    lifecycle_->delete_checkpoint("box", name, deleted.callback());
    EXPECT_EQ(deleted.failure().status, VC_E_INVALID_ARGUMENT) << name;
    Heard<CheckpointOutcome> forked;
    lifecycle_->fork_checkpoint(ForkSpec{"box", "copy", name}, {}, forked.callback());
    EXPECT_EQ(forked.failure().status, VC_E_INVALID_ARGUMENT) << name;
  }
  run();
  EXPECT_TRUE(backend_->all_started().empty());
  // The longest name the rule allows goes through.
  backend_->script(Operation::create_checkpoint,
                   FakeReply::ok(checkpoint_result(std::string(63, 'x'), fake_computer_info("box"))));
  Heard<CheckpointOutcome> longest;
  lifecycle_->create_checkpoint("box", std::string(63, 'x'), {}, longest.callback());
  run();
  EXPECT_EQ(backend_->count(Operation::create_checkpoint), 1U);
}

TEST_F(CheckpointLifecycleTest, CreatingOnTheServersComputerAcquiresItFirstAndIsNoMaintenance) {
  backend_->script(Operation::create_checkpoint, FakeReply::ok(checkpoint_result("v1")));
  Heard<CheckpointOutcome> created;
  lifecycle_->create_checkpoint(std::nullopt, "v1", {}, created.callback());
  EXPECT_EQ(created.calls, 0);
  run();
  ASSERT_TRUE(created.ok()) << created.failure().message;
  EXPECT_EQ(backend_->count(Operation::create), 1U) << "the computer did not exist yet";
  EXPECT_EQ(backend_->started(Operation::create_checkpoint).at(0)->request,
            (Json{{"computer_id", "test-computer"}, {"name", "v1"}}));
  ASSERT_TRUE(created.result().checkpoint);
  EXPECT_EQ(created.result().checkpoint->size_bytes, 12345U);
  EXPECT_FALSE(backend_->started(Operation::wait_for_death).at(0)->cancel_requested)
      << "a checkpoint leaves the computer running: the death watch goes on";
  EXPECT_EQ(checkpoint_report(created.result()),
            (Json{{"ok", true},
                  {"computer_id", "test-computer"},
                  {"sandbox_id", test_support::kFakeSandboxId},
                  {"temporary", false},
                  {"checkpoint", checkpoint_info("v1")}}));
}

TEST_F(CheckpointLifecycleTest, RestoringTheServersComputerIsMaintenanceNotADeath) {
  acquire();
  auto first_watch = backend_->started(Operation::wait_for_death).at(0);
  Json replaced = fake_computer_info();
  replaced["sandbox_id"] = "restored0000";
  backend_->script(Operation::restore_checkpoint,
                   FakeReply::ok(checkpoint_result("v1", replaced),
                                 {{VC_STREAM_PROGRESS, R"({"progress":1,"total":2,"message":"Copying files"})"}}));
  Heard<CheckpointOutcome> restored;
  std::vector<std::string> progress;
  lifecycle_->restore_checkpoint(
      std::nullopt, "v1",
      [&progress](double, std::optional<double>, const std::string& message) {
        progress.push_back(message);
      },
      restored.callback());
  run();
  ASSERT_TRUE(restored.ok()) << restored.failure().message;
  EXPECT_EQ(progress, std::vector<std::string>{"Copying files"});
  EXPECT_TRUE(first_watch->cancel_requested) << "the watch pauses while the files are replaced";
  EXPECT_TRUE(deaths_.empty());
  ASSERT_TRUE(registry_->current().has_value());
  EXPECT_EQ(registry_->current()->sandbox_id, "restored0000") << "the registry uses the new one";
  EXPECT_EQ(backend_->count(Operation::wait_for_death), 2U) << "watching again afterwards";
  EXPECT_EQ(backend_->count(Operation::validate), 1U);
}

TEST_F(CheckpointLifecycleTest, ACommandCutOffByARestoreFailsWithoutADeath) {
  acquire();
  backend_->script(Operation::exec, FakeReply::held());
  backend_->script(Operation::restore_checkpoint, FakeReply::held());
  Heard<ExecResult> command;
  ExecRequest request;
  request.command = "sleep 100";
  registry_->execute(request, {}, command.callback());
  run();
  Heard<CheckpointOutcome> restored;
  lifecycle_->restore_checkpoint("test-computer", "v1", {}, restored.callback());
  run();
  backend_->resolve(backend_->started(Operation::exec).at(0),
                    FakeReply::fail(VC_E_COMPUTER_DIED, "container stopped"));
  run();
  ASSERT_FALSE(command.ok());
  EXPECT_NE(command.failure().message.find("was restarted, reset or deleted"), std::string::npos)
      << command.failure().message;
  backend_->resolve(backend_->started(Operation::restore_checkpoint).at(0),
                    FakeReply::ok(checkpoint_result("v1")));
  run();
  EXPECT_TRUE(restored.ok());
  EXPECT_TRUE(deaths_.empty());
}

TEST_F(CheckpointLifecycleTest, AFailedRestoreOfTheServersComputerIsNoDeath) {
  acquire();
  backend_->script(Operation::restore_checkpoint,
                   FakeReply::fail(VC_E_NOT_FOUND, "No checkpoint 'v9' of computer 'test-computer'."));
  Heard<CheckpointOutcome> restored;
  lifecycle_->restore_checkpoint(std::nullopt, "v9", {}, restored.callback());
  run();
  ASSERT_FALSE(restored.ok());
  EXPECT_EQ(restored.failure().status, VC_E_NOT_FOUND);
  EXPECT_EQ(restored.failure().message, "No checkpoint 'v9' of computer 'test-computer'.");
  EXPECT_TRUE(deaths_.empty());
  Heard<ExecResult> after;
  ExecRequest request;
  request.command = "true";
  backend_->script(Operation::attach, FakeReply::ok(fake_computer_info()));
  registry_->execute(request, {}, after.callback());
  run();
  EXPECT_TRUE(after.ok()) << "the next call finds the computer again";
}

TEST_F(CheckpointLifecycleTest, ARestoreOfAnotherComputerLeavesTheRegistryAlone) {
  acquire();
  backend_->script(Operation::restore_checkpoint,
                   FakeReply::ok(checkpoint_result("v1", fake_computer_info("other"))));
  Heard<CheckpointOutcome> restored;
  lifecycle_->restore_checkpoint("other", "v1", {}, restored.callback());
  run();
  ASSERT_TRUE(restored.ok()) << restored.failure().message;
  EXPECT_FALSE(backend_->started(Operation::wait_for_death).at(0)->cancel_requested);
}

TEST_F(CheckpointLifecycleTest, AForkMakesANewComputerAndNeedsAnIdOfItsOwn) {
  Heard<CheckpointOutcome> onto_itself;
  lifecycle_->fork_checkpoint(ForkSpec{"box", "box", std::nullopt}, {}, onto_itself.callback());
  EXPECT_EQ(onto_itself.failure().status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(onto_itself.failure().message,
            "A fork needs a new computer id; 'box' is the computer being forked.");
  Heard<CheckpointOutcome> bad_id;
  lifecycle_->fork_checkpoint(ForkSpec{"box", "Not_An_Id", std::nullopt}, {}, bad_id.callback());
  EXPECT_EQ(bad_id.failure().status, VC_E_INVALID_ARGUMENT);
  EXPECT_NE(bad_id.failure().message.find("'Not_An_Id' cannot name the new computer"),
            std::string::npos);
  run();
  EXPECT_TRUE(backend_->all_started().empty());

  // From the current files: no name in the request, a null checkpoint in the result.
  backend_->script(Operation::fork_checkpoint,
                   FakeReply::ok(Json{{"checkpoint", nullptr}, {"computer", fake_computer_info("copy")}}));
  Heard<CheckpointOutcome> forked;
  lifecycle_->fork_checkpoint(ForkSpec{"box", "copy", std::nullopt}, {}, forked.callback());
  run();
  ASSERT_TRUE(forked.ok()) << forked.failure().message;
  EXPECT_EQ(backend_->started(Operation::fork_checkpoint).at(0)->request,
            (Json{{"computer_id", "box"}, {"new_computer_id", "copy"}}));
  EXPECT_EQ(forked.result().computer.computer_id, "copy");
  EXPECT_FALSE(forked.result().checkpoint);
  EXPECT_EQ(computer_forked_report("box", forked.result())["checkpoint"], Json());
  EXPECT_EQ(computer_forked_report("box", forked.result())["forked_from"], "box");

  // From a checkpoint: the checkpoint is required in the result, and the new computer must be
  // the one described.
  backend_->script(Operation::fork_checkpoint,
                   FakeReply::ok(Json{{"checkpoint", nullptr}, {"computer", fake_computer_info("copy2")}}));
  Heard<CheckpointOutcome> without_checkpoint;
  lifecycle_->fork_checkpoint(ForkSpec{"box", "copy2", "v1"}, {}, without_checkpoint.callback());
  run();
  ASSERT_FALSE(without_checkpoint.ok());
  EXPECT_NE(without_checkpoint.failure().message.find("no \"checkpoint\""), std::string::npos);
  EXPECT_EQ(backend_->started(Operation::fork_checkpoint).at(1)->request["name"], "v1");
  backend_->script(Operation::fork_checkpoint, FakeReply::ok(checkpoint_result("v1", fake_computer_info("box"))));
  Heard<CheckpointOutcome> wrong_computer;
  lifecycle_->fork_checkpoint(ForkSpec{"box", "copy3", "v1"}, {}, wrong_computer.callback());
  run();
  ASSERT_FALSE(wrong_computer.ok());
  EXPECT_EQ(wrong_computer.failure().message,
            "The backend returned computer 'box' when asked for 'copy3'.");
}

TEST_F(CheckpointLifecycleTest, ListsAndDeletionsAreReadStrictly) {
  backend_->script(Operation::list_checkpoints,
                   FakeReply::ok(Json{{"computer_id", "box"},
                                      {"checkpoints", Json::array({checkpoint_info("old", "box"),
                                                                   checkpoint_info("new", "box")})}}));
  Heard<CheckpointListing> listed;
  lifecycle_->list_checkpoints("box", listed.callback());
  run();
  ASSERT_TRUE(listed.ok()) << listed.failure().message;
  ASSERT_EQ(listed.result().checkpoints.size(), 2U);
  EXPECT_EQ(listed.result().checkpoints[0].name, "old") << "the backend's order: oldest first";
  const Json report = checkpoint_listing_report(listed.result());
  EXPECT_EQ(report["computer_id"], "box");
  EXPECT_EQ(report["count"], 2);
  EXPECT_EQ(report["checkpoints"][1], checkpoint_info("new", "box"));

  Json broken = checkpoint_info("old", "box");
  broken["size_bytes"] = "big";
  backend_->script(Operation::list_checkpoints,
                   FakeReply::ok(Json{{"computer_id", "box"}, {"checkpoints", Json::array({broken})}}));
  Heard<CheckpointListing> unusable;
  lifecycle_->list_checkpoints("box", unusable.callback());
  run();
  ASSERT_FALSE(unusable.ok());
  EXPECT_EQ(unusable.failure().message,
            "The backend returned an unusable list_checkpoints result: checkpoint info field "
            "\"size_bytes\" must be a non-negative integer.");

  backend_->script(Operation::delete_checkpoint,
                   FakeReply::ok(Json{{"computer_id", "box"}, {"name", "old"}, {"deleted", true}}));
  Heard<bool> deleted;
  lifecycle_->delete_checkpoint("box", "old", deleted.callback());
  run();
  EXPECT_TRUE(deleted.ok());
  EXPECT_EQ(backend_->started(Operation::delete_checkpoint).at(0)->request,
            (Json{{"computer_id", "box"}, {"name", "old"}}));
  backend_->script(Operation::delete_checkpoint,
                   FakeReply::ok(Json{{"computer_id", "box"}, {"name", "old"}}));
  Heard<bool> unsaid;
  lifecycle_->delete_checkpoint("box", "old", unsaid.callback());
  run();
  EXPECT_FALSE(unsaid.ok());
}

TEST_F(CheckpointLifecycleTest, ALifecycleWithoutARegistryNeedsAComputerNamed) {
  ComputerLifecycle standalone(backend_, settings_, nullptr);
  Heard<CheckpointListing> listed;
  standalone.list_checkpoints(std::nullopt, listed.callback());
  ASSERT_EQ(listed.calls, 1);
  EXPECT_EQ(listed.failure().status, VC_E_INVALID_ARGUMENT);
}

}  // namespace
}  // namespace vc::computers
