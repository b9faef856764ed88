// Tests of ComputerRegistry: lazy acquisition, shared first acquisition, retries, exec
// requests and results, the death watch, cancellation and shutdown; and ComputerLifecycle on
// top of it (maintenance windows: a restart is not a death, a reset revives a dead computer).
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <vc-backend-1/vc_status.h>

#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "computers_fake_backend.h"

namespace vc::computers {
namespace {

using backend_proxy::Operation;
using test_support::exec_result;
using test_support::fake_computer_info;
using test_support::FakeReply;

// Records what a `done` callback received (and how often).
template <class T>
struct Outcome {
  int calls = 0;
  std::optional<Expected<T>> value;

  std::function<void(Expected<T>)> callback() {
    return [this](Expected<T> result) {
      ++calls;
      value = std::move(result);
    };
  }
  bool ok() const { return value && value->ok(); }
  const Failure& failure() const { return value->error(); }
};

struct ProgressRecord {
  double progress;
  std::optional<double> total;
  std::string message;
};

class RegistryTest : public test_support::FakeBackendTest {
 protected:
  void SetUp() override {
    FakeBackendTest::SetUp();
    settings_.computer_id = test_support::kFakeComputerId;
    settings_.network_access = false;
    settings_.desktop_environment = true;
    settings_.shell = "/bin/sh";
    settings_.workspace_directory = "/home/work";
    registry_ = std::make_unique<ComputerRegistry>(backend_, settings_);
  }

  void release_users() override { registry_.reset(); }

  ExecRequest shell_command(const std::string& command) {
    ExecRequest request;
    request.command = command;
    request.timeout_s = 30;
    request.output_limit = 1000;
    return request;
  }

  std::vector<Operation> started_kinds() const {
    std::vector<Operation> kinds;
    for (const auto& op : backend_->all_started()) kinds.push_back(op->op);
    return kinds;
  }

  ComputerSettings settings_;
  std::unique_ptr<ComputerRegistry> registry_;
};

TEST_F(RegistryTest, DoesNothingBeforeFirstUse) {
  run();
  EXPECT_TRUE(backend_->all_started().empty());
  EXPECT_FALSE(registry_->current().has_value());
}

TEST_F(RegistryTest, AttachesToAnExistingComputerWithoutCreating) {
  backend_->script(Operation::attach, FakeReply::ok(fake_computer_info()));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  EXPECT_EQ(outcome.calls, 0) << "the answer must come from the loop, not from acquire()";
  run();

  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome.value->value().sandbox_id, test_support::kFakeSandboxId);
  EXPECT_EQ(started_kinds(), (std::vector<Operation>{Operation::validate, Operation::attach,
                                                     Operation::wait_for_death}));
  EXPECT_EQ(backend_->started(Operation::attach)[0]->request.dump(),
            R"({"computer_id":"test-computer","network_access":false,)"
            R"("desktop_environment":true,"shell":"/bin/sh"})");
  ASSERT_TRUE(registry_->current().has_value());
  EXPECT_EQ(registry_->current()->computer_id, "test-computer");
}

TEST_F(RegistryTest, CreatesAfterEnsuringTheImageWhenNoComputerExists) {
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();

  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(started_kinds(),
            (std::vector<Operation>{Operation::validate, Operation::attach, Operation::ensure_image,
                                    Operation::create, Operation::wait_for_death}));
  EXPECT_EQ(backend_->started(Operation::ensure_image)[0]->request, Json::object());
  EXPECT_EQ(backend_->started(Operation::create)[0]->request.dump(),
            R"({"computer_id":"test-computer","temporary":false,"network_access":false,)"
            R"("desktop_environment":true,"workspace_directory":"/home/work","shell":"/bin/sh",)"
            R"("adopt_existing":true})");
}

TEST_F(RegistryTest, ABackendWithoutEnsureImageStillCreates) {
  // The ABI makes ensure_image optional: a NULL slot answers VC_E_UNSUPPORTED (the Kubernetes
  // backend has no images to prepare). That is no reason not to create the computer.
  backend_->script(Operation::ensure_image,
                   FakeReply::fail(VC_E_UNSUPPORTED, "The fake backend does not support ensure_image."));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();

  ASSERT_TRUE(outcome.ok()) << outcome.failure().message;
  EXPECT_EQ(started_kinds(),
            (std::vector<Operation>{Operation::validate, Operation::attach, Operation::ensure_image,
                                    Operation::create, Operation::wait_for_death}));
}

TEST_F(RegistryTest, AFailedEnsureImageStopsTheCreate) {
  backend_->script(Operation::ensure_image, FakeReply::fail(VC_E_FAILED, "The pull failed."));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();

  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.failure().message, "The pull failed.");
  EXPECT_EQ(backend_->count(Operation::create), 0U);
}

TEST_F(RegistryTest, ACreateRacedByAnotherClientAttachesOnceMoreToA10Plugin) {
  backend_->script(Operation::create,
                   FakeReply::fail(VC_E_ALREADY_EXISTS, "The name is taken."));
  backend_->script(Operation::attach,
                   FakeReply::fail(VC_E_NOT_FOUND, "No computer named 'test-computer' exists."));
  backend_->script(Operation::attach, FakeReply::ok(fake_computer_info()));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();

  ASSERT_TRUE(outcome.ok()) << outcome.failure().message;
  EXPECT_EQ(started_kinds(),
            (std::vector<Operation>{Operation::validate, Operation::attach, Operation::ensure_image,
                                    Operation::create, Operation::attach,
                                    Operation::wait_for_death}));
}

TEST_F(RegistryTest, TheAttachFallbackRunsOnlyOnce) {
  backend_->script(Operation::create,
                   FakeReply::fail(VC_E_ALREADY_EXISTS, "The name is taken."));
  backend_->script(Operation::create,
                   FakeReply::fail(VC_E_ALREADY_EXISTS, "The name is still taken."));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();

  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.failure().status, VC_E_ALREADY_EXISTS);
  EXPECT_EQ(outcome.failure().message, "The name is still taken.");
  EXPECT_EQ(backend_->count(Operation::create), 2U);
  EXPECT_EQ(backend_->count(Operation::attach), 2U);
}

TEST_F(RegistryTest, A11PluginsAlreadyExistsIsFinalBecauseItWouldHaveAdopted) {
  backend_->set_abi_minor(1);
  backend_->script(Operation::create,
                   FakeReply::fail(VC_E_ALREADY_EXISTS,
                                   "The name is in use by a container not owned by this server."));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();

  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.failure().status, VC_E_ALREADY_EXISTS);
  EXPECT_EQ(backend_->count(Operation::attach), 1U);
  EXPECT_EQ(backend_->started(Operation::create).at(0)->request["adopt_existing"], true);
}

TEST_F(RegistryTest, AnAcquiredComputerIsReusedWithoutBackendWork) {
  Outcome<ComputerInfo> first;
  registry_->acquire({}, first.callback());
  run();
  size_t ops_after_first = backend_->all_started().size();

  Outcome<ComputerInfo> second;
  registry_->acquire({}, second.callback());
  EXPECT_EQ(second.calls, 1);
  EXPECT_TRUE(second.ok());
  EXPECT_EQ(backend_->all_started().size(), ops_after_first);
}

TEST_F(RegistryTest, ConcurrentFirstCallsShareOneAcquisition) {
  Outcome<ComputerInfo> first;
  Outcome<ComputerInfo> second;
  Outcome<ExecResult> third;
  registry_->acquire({}, first.callback());
  registry_->acquire({}, second.callback());
  registry_->execute(shell_command("true"), {}, third.callback());
  run();

  EXPECT_TRUE(first.ok());
  EXPECT_TRUE(second.ok());
  EXPECT_TRUE(third.ok());
  EXPECT_EQ(backend_->count(Operation::validate), 1U);
  EXPECT_EQ(backend_->count(Operation::attach), 1U);
  EXPECT_EQ(backend_->count(Operation::create), 1U);
  EXPECT_EQ(backend_->count(Operation::wait_for_death), 1U);
}

TEST_F(RegistryTest, AFailedCreateFailsEveryWaiterAndIsRetriedByTheNextCall) {
  backend_->script(Operation::create,
                   FakeReply::fail(VC_E_FAILED, "Failed to pull image 'fake:latest'."));
  Outcome<ComputerInfo> first;
  Outcome<ExecResult> second;
  registry_->acquire({}, first.callback());
  registry_->execute(shell_command("true"), {}, second.callback());
  run();
  ASSERT_EQ(first.calls, 1);
  ASSERT_EQ(second.calls, 1);
  EXPECT_EQ(first.failure().message, "Failed to pull image 'fake:latest'.");
  EXPECT_EQ(second.failure().message, "Failed to pull image 'fake:latest'.");
  EXPECT_FALSE(registry_->current().has_value());
  EXPECT_EQ(backend_->count(Operation::exec), 0U);

  Outcome<ComputerInfo> retry;
  registry_->acquire({}, retry.callback());
  run();
  EXPECT_TRUE(retry.ok());
  EXPECT_EQ(backend_->count(Operation::create), 2U);
  EXPECT_EQ(backend_->count(Operation::attach), 2U);
  EXPECT_EQ(backend_->count(Operation::validate), 1U) << "a validated backend is not re-validated";
}

TEST_F(RegistryTest, AValidationFailurePassesThePluginMessageAndIsRetried) {
  const std::string message = "Cannot connect to docker. Is the docker daemon running?";
  backend_->script(Operation::validate, FakeReply::fail(VC_E_UNAVAILABLE, message));
  Outcome<ComputerInfo> first;
  registry_->acquire({}, first.callback());
  run();
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.failure().status, VC_E_UNAVAILABLE);
  EXPECT_EQ(first.failure().message, message);
  EXPECT_EQ(backend_->count(Operation::attach), 0U);

  Outcome<ComputerInfo> retry;
  registry_->acquire({}, retry.callback());
  run();
  EXPECT_TRUE(retry.ok());
  EXPECT_EQ(backend_->count(Operation::validate), 2U);
}

TEST_F(RegistryTest, AnAttachFailureOtherThanNotFoundDoesNotCreate) {
  backend_->script(Operation::attach, FakeReply::fail(VC_E_PERMISSION, "Permission denied."));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.failure().message, "Permission denied.");
  EXPECT_EQ(backend_->count(Operation::create), 0U);
}

TEST_F(RegistryTest, AComputerWithAnotherIdIsRefused) {
  backend_->script(Operation::attach, FakeReply::ok(fake_computer_info("someone-else")));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.failure().message.find("'someone-else'"), std::string::npos);
  EXPECT_FALSE(registry_->current().has_value());
}

TEST_F(RegistryTest, AMalformedComputerDescriptionIsAFailure) {
  Json info = fake_computer_info();
  info["network_access"] = "yes";
  backend_->script(Operation::attach, FakeReply::ok(info));
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.failure().message.find("network_access"), std::string::npos);
}

TEST_F(RegistryTest, ImageProgressReachesEveryWaiter) {
  backend_->script(
      Operation::ensure_image,
      FakeReply::ok(Json{{"image", "fake:latest"}, {"action", "pulled"}},
                    {{VC_STREAM_PROGRESS, R"({"progress":1,"total":4,"message":"Pulling"})"},
                     {VC_STREAM_PROGRESS, "not json"},
                     {VC_STREAM_PROGRESS, R"({"progress":2.5})"}}));
  std::vector<ProgressRecord> first_progress;
  std::vector<ProgressRecord> second_progress;
  auto recorder = [](std::vector<ProgressRecord>& into) {
    return [&into](double progress, std::optional<double> total, const std::string& message) {
      into.push_back({progress, total, message});
    };
  };
  Outcome<ComputerInfo> first;
  Outcome<ExecResult> second;
  registry_->acquire(recorder(first_progress), first.callback());
  registry_->execute(shell_command("true"), recorder(second_progress), second.callback());
  run();

  EXPECT_TRUE(first.ok());
  EXPECT_TRUE(second.ok());
  for (const auto* progress : {&first_progress, &second_progress}) {
    ASSERT_EQ(progress->size(), 2U);
    EXPECT_EQ((*progress)[0].progress, 1.0);
    EXPECT_EQ((*progress)[0].total, 4.0);
    EXPECT_EQ((*progress)[0].message, "Pulling");
    EXPECT_EQ((*progress)[1].progress, 2.5);
    EXPECT_FALSE((*progress)[1].total.has_value());
  }
}

TEST_F(RegistryTest, ExecuteSendsTheShellCommandRequestAndGathersOutput) {
  backend_->script(Operation::exec,
                   FakeReply::ok(exec_result(3, "exited", 42), {{VC_STREAM_STDOUT, "hel"},
                                                                {VC_STREAM_STDERR, "oops"},
                                                                {VC_STREAM_STDOUT, "lo"}}));
  ExecRequest request = shell_command("echo hello");
  request.stdin_data = "input bytes";
  Outcome<ExecResult> outcome;
  registry_->execute(request, {}, outcome.callback());
  run();

  ASSERT_TRUE(outcome.ok());
  const ExecResult& result = outcome.value->value();
  EXPECT_EQ(result.stdout_bytes, "hello");
  EXPECT_EQ(result.stderr_bytes, "oops");
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.outcome, ExecOutcome::exited);
  EXPECT_EQ(result.duration_ms, 42);
  EXPECT_EQ(result.computer.computer_id, "test-computer");

  auto exec = backend_->started(Operation::exec).at(0);
  EXPECT_EQ(exec->request.dump(),
            R"({"computer_id":"test-computer","command":"echo hello","shell":"/bin/sh",)"
            R"("timeout_ms":30000,"output_limit":1000})");
  EXPECT_EQ(exec->stdin_bytes, "input bytes");
}

TEST_F(RegistryTest, ExecuteSendsArgvAndTheWorkingDirectory) {
  backend_->script(Operation::exec, FakeReply::held());
  ExecRequest request;
  request.args = {"ls", "-l", ""};
  request.working_directory = "/tmp";
  request.timeout_s = 5;
  request.output_limit = 77;
  Outcome<ExecResult> outcome;
  registry_->execute(request, {}, outcome.callback());
  run();

  auto exec = backend_->started(Operation::exec).at(0);
  EXPECT_EQ(exec->request.dump(),
            R"({"computer_id":"test-computer","argv":["ls","-l",""],"working_directory":"/tmp",)"
            R"("timeout_ms":5000,"output_limit":77})");
  EXPECT_EQ(exec->callbacks.output_limit, 77U);
  EXPECT_TRUE(exec->stdin_bytes.empty());
  backend_->resolve(exec, FakeReply::ok(exec_result(0)));
  run();
  EXPECT_TRUE(outcome.ok());
}

TEST_F(RegistryTest, AHugeTimeoutSaturatesInsteadOfOverflowing) {
  ExecRequest request = shell_command("sleep 1");
  request.timeout_s = std::numeric_limits<int64_t>::max();
  Outcome<ExecResult> outcome;
  registry_->execute(request, {}, outcome.callback());
  run();
  EXPECT_EQ(backend_->started(Operation::exec).at(0)->request["timeout_ms"].get<int64_t>(),
            std::numeric_limits<int64_t>::max());
}

TEST_F(RegistryTest, TimeoutAndOutputLimitOutcomesAreReported) {
  backend_->script(Operation::exec, FakeReply::ok(exec_result(137, "timed_out")));
  backend_->script(Operation::exec, FakeReply::ok(exec_result(137, "output_limit_exceeded")));
  Outcome<ExecResult> timed_out;
  Outcome<ExecResult> limited;
  registry_->execute(shell_command("sleep 99"), {}, timed_out.callback());
  registry_->execute(shell_command("yes"), {}, limited.callback());
  run();
  ASSERT_TRUE(timed_out.ok());
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(timed_out.value->value().outcome, ExecOutcome::timed_out);
  EXPECT_EQ(limited.value->value().outcome, ExecOutcome::output_limit_exceeded);
}

// The backend proxy enforces the output limit (tests/plugins/exec_output_limit_test.cpp drives
// it through a real plugin); the registry keeps whatever the backend delivers and reports the
// backend's outcome, so the limit is never counted twice.
TEST_F(RegistryTest, TheRegistryKeepsWhatTheBackendDeliversAndItsOutcome) {
  backend_->script(Operation::exec,
                   FakeReply::ok(exec_result(0), {{VC_STREAM_STDOUT, std::string(600, 'a')},
                                                  {VC_STREAM_STDERR, std::string(600, 'b')}}));
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("yes"), {}, outcome.callback());  // limit 1000
  run();
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome.value->value().outcome, ExecOutcome::exited);
  EXPECT_EQ(outcome.value->value().stdout_bytes, std::string(600, 'a'));
  EXPECT_EQ(outcome.value->value().stderr_bytes, std::string(600, 'b'));
}

TEST_F(RegistryTest, AMalformedExecResultIsAFailure) {
  backend_->script(Operation::exec, FakeReply::ok(Json{{"exit_code", 0}, {"outcome", "vanished"}}));
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("true"), {}, outcome.callback());
  run();
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.failure().message.find("vanished"), std::string::npos);
}

TEST_F(RegistryTest, AMissingDurationIsMeasuredByTheHost) {
  backend_->script(Operation::exec, FakeReply::ok(Json{{"exit_code", 0}, {"outcome", "exited"}}));
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("true"), {}, outcome.callback());
  run();
  ASSERT_TRUE(outcome.ok());
  EXPECT_GE(outcome.value->value().duration_ms, 0);
}

TEST_F(RegistryTest, TheDeathWatchFiresTheHandlerOnceAndLaterCallsFail) {
  std::vector<std::string> deaths;
  registry_->set_death_handler(
      [&deaths](const std::string& message) { deaths.push_back(message); });
  Outcome<ComputerInfo> acquired;
  registry_->acquire({}, acquired.callback());
  run();
  ASSERT_TRUE(acquired.ok());
  auto watch = backend_->started(Operation::wait_for_death).at(0);
  EXPECT_EQ(watch->request, (Json{{"computer_id", "test-computer"}}));
  EXPECT_TRUE(deaths.empty());

  backend_->resolve(watch, FakeReply::ok(Json{{"exit_code", 137}, {"reason", "killed"}}));
  run();
  ASSERT_EQ(deaths.size(), 1U);
  EXPECT_EQ(deaths[0], "Sandbox 0123456789ab died during command execution");

  Outcome<ExecResult> later;
  registry_->execute(shell_command("true"), {}, later.callback());
  ASSERT_EQ(later.calls, 1) << "a dead computer is refused at once";
  EXPECT_EQ(later.failure().status, VC_E_COMPUTER_DIED);
  EXPECT_EQ(later.failure().message, "Sandbox 0123456789ab died during command execution");
  Outcome<ComputerInfo> reacquire;
  registry_->acquire({}, reacquire.callback());
  EXPECT_FALSE(reacquire.ok());
  run();
  EXPECT_EQ(backend_->count(Operation::exec), 0U);
  EXPECT_EQ(deaths.size(), 1U);
}

TEST_F(RegistryTest, AnExecThatSeesTheComputerDieFailsWithTheDiedMessage) {
  std::vector<std::string> deaths;
  registry_->set_death_handler(
      [&deaths](const std::string& message) { deaths.push_back(message); });
  backend_->script(Operation::exec, FakeReply::fail(VC_E_COMPUTER_DIED, "container exited"));
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("kill 1"), {}, outcome.callback());
  run();
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.failure().status, VC_E_COMPUTER_DIED);
  EXPECT_EQ(outcome.failure().message, "Sandbox 0123456789ab died during command execution");
  EXPECT_EQ(deaths.size(), 1U);
  EXPECT_TRUE(backend_->started(Operation::wait_for_death).at(0)->cancel_requested);
}

TEST_F(RegistryTest, AFailingCommandOnAComputerThatDiedMeanwhileReportsTheDeath) {
  backend_->script(Operation::exec, FakeReply::held());
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("sleep 10"), {}, outcome.callback());
  run();
  backend_->resolve(backend_->started(Operation::wait_for_death).at(0),
                    FakeReply::ok(Json{{"reason", "exited"}}));
  run();
  backend_->resolve(backend_->started(Operation::exec).at(0), FakeReply::ok(exec_result(137)));
  run();
  ASSERT_FALSE(outcome.ok());
  EXPECT_NE(outcome.failure().message.find("died"), std::string::npos);
}

TEST_F(RegistryTest, ABackendWithoutDeathWatchingStillRunsCommands) {
  backend_->script(
      Operation::wait_for_death,
      FakeReply::fail(VC_E_UNSUPPORTED, "The fake backend does not support wait_for_death."));
  bool died = false;
  registry_->set_death_handler([&died](const std::string&) { died = true; });
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("true"), {}, outcome.callback());
  run();
  EXPECT_TRUE(outcome.ok());
  EXPECT_FALSE(died);
}

TEST_F(RegistryTest, AFailedDeathWatchIsNotADeath) {
  backend_->script(Operation::wait_for_death, FakeReply::fail(VC_E_FAILED, "events stream broke"));
  bool died = false;
  registry_->set_death_handler([&died](const std::string&) { died = true; });
  Outcome<ComputerInfo> acquired;
  registry_->acquire({}, acquired.callback());
  run();
  Outcome<ExecResult> outcome;
  registry_->execute(shell_command("true"), {}, outcome.callback());
  run();
  EXPECT_TRUE(outcome.ok());
  EXPECT_FALSE(died);
}

TEST_F(RegistryTest, CancellingAnExecutionCancelsTheExecOp) {
  backend_->script(Operation::exec, FakeReply::held());
  Outcome<ExecResult> outcome;
  CancelHandle handle = registry_->execute(shell_command("sleep 100"), {}, outcome.callback());
  run();
  auto exec = backend_->started(Operation::exec).at(0);
  EXPECT_FALSE(exec->cancel_requested);

  handle->cancel();
  EXPECT_TRUE(exec->cancel_requested);
  run();
  ASSERT_EQ(outcome.calls, 1);
  EXPECT_EQ(outcome.failure().status, VC_E_CANCELLED);
  handle->cancel();  // harmless once finished
  EXPECT_EQ(outcome.calls, 1);
}

TEST_F(RegistryTest, CancellingOneWaiterLeavesTheAcquisitionToTheOthers) {
  Outcome<ExecResult> cancelled;
  Outcome<ExecResult> kept;
  CancelHandle handle = registry_->execute(shell_command("true"), {}, cancelled.callback());
  registry_->execute(shell_command("true"), {}, kept.callback());
  handle->cancel();
  ASSERT_EQ(cancelled.calls, 1) << "a waiting caller stops waiting at once";
  EXPECT_EQ(cancelled.failure().status, VC_E_CANCELLED);
  run();
  EXPECT_EQ(cancelled.calls, 1);
  EXPECT_TRUE(kept.ok());
  EXPECT_EQ(backend_->count(Operation::create), 1U);
  EXPECT_EQ(backend_->count(Operation::exec), 1U);
}

TEST_F(RegistryTest, AnAcquisitionEveryoneLeftStillFinishesAndIsKept) {
  Outcome<ComputerInfo> outcome;
  CancelHandle handle = registry_->acquire({}, outcome.callback());
  handle->cancel();
  EXPECT_EQ(outcome.calls, 1);
  run();
  EXPECT_EQ(outcome.calls, 1);
  EXPECT_TRUE(registry_->current().has_value());
  EXPECT_EQ(backend_->count(Operation::create), 1U);
}

TEST_F(RegistryTest, ShutdownCancelsPendingWorkButNeverStopsTheComputer) {
  backend_->script(Operation::exec, FakeReply::held());
  bool died = false;
  registry_->set_death_handler([&died](const std::string&) { died = true; });
  Outcome<ExecResult> running;
  registry_->execute(shell_command("sleep 100"), {}, running.callback());
  run();
  registry_->shutdown();
  EXPECT_TRUE(backend_->started(Operation::exec).at(0)->cancel_requested);
  EXPECT_TRUE(backend_->started(Operation::wait_for_death).at(0)->cancel_requested);
  run();
  ASSERT_EQ(running.calls, 1);
  EXPECT_EQ(running.failure().status, VC_E_CANCELLED);
  EXPECT_FALSE(died);

  Outcome<ExecResult> after;
  registry_->execute(shell_command("true"), {}, after.callback());
  ASSERT_EQ(after.calls, 1);
  EXPECT_EQ(after.failure().status, VC_E_CANCELLED);
  for (const auto& op : backend_->all_started()) {
    EXPECT_NE(op->op, Operation::remove);
    EXPECT_NE(op->op, Operation::restart);
    EXPECT_NE(op->op, Operation::factory_reset);
  }
}

TEST_F(RegistryTest, ShutdownDuringAcquisitionCancelsTheRunningStep) {
  backend_->script(Operation::create, FakeReply::held());
  Outcome<ComputerInfo> outcome;
  registry_->acquire({}, outcome.callback());
  run();
  registry_->shutdown();
  EXPECT_TRUE(backend_->started(Operation::create).at(0)->cancel_requested);
  run();
  ASSERT_EQ(outcome.calls, 1);
  EXPECT_EQ(outcome.failure().status, VC_E_CANCELLED);
  EXPECT_EQ(backend_->count(Operation::wait_for_death), 0U);
}

TEST_F(RegistryTest, DestroyingTheRegistryStillAnswersPendingCallers) {
  backend_->script(Operation::exec, FakeReply::held());
  Outcome<ExecResult> running;
  registry_->execute(shell_command("sleep 100"), {}, running.callback());
  run();
  registry_.reset();
  run();
  ASSERT_EQ(running.calls, 1);
  EXPECT_EQ(running.failure().status, VC_E_CANCELLED);
}

// Lifecycle operations, on the registry's own computer and on others.
class LifecycleTest : public RegistryTest {
 protected:
  void SetUp() override {
    RegistryTest::SetUp();
    lifecycle_ = std::make_unique<ComputerLifecycle>(backend_, settings_, registry_.get());
    registry_->set_death_handler([this](const std::string& message) { deaths_.push_back(message); });
  }
  void release_users() override {
    lifecycle_.reset();
    RegistryTest::release_users();
  }

  // Acquires the registry's computer; its death watch is then pending.
  void acquire() {
    Outcome<ComputerInfo> acquired;
    registry_->acquire({}, acquired.callback());
    run();
    ASSERT_TRUE(acquired.ok());
  }

  static Json info_with_sandbox(const std::string& sandbox_id) {
    Json info = fake_computer_info();
    info["sandbox_id"] = sandbox_id;
    return info;
  }

  std::unique_ptr<ComputerLifecycle> lifecycle_;
  std::vector<std::string> deaths_;
};

TEST_F(LifecycleTest, RestartingTheServersComputerIsNotADeath) {
  acquire();
  auto first_watch = backend_->started(Operation::wait_for_death).at(0);
  backend_->script(Operation::restart, FakeReply::ok(fake_computer_info()));
  Outcome<ComputerInfo> restarted;
  lifecycle_->restart(test_support::kFakeComputerId, restarted.callback());
  EXPECT_EQ(restarted.calls, 0) << "never answered before the call returns";
  run();
  ASSERT_TRUE(restarted.ok());
  EXPECT_TRUE(first_watch->cancel_requested) << "the watch pauses while the computer restarts";
  EXPECT_TRUE(deaths_.empty());
  EXPECT_EQ(backend_->count(Operation::wait_for_death), 2U) << "watching again afterwards";
  Outcome<ExecResult> after;
  registry_->execute(shell_command("true"), {}, after.callback());
  run();
  EXPECT_TRUE(after.ok());
}

TEST_F(LifecycleTest, AFactoryResetRevivesADeadComputer) {
  acquire();
  backend_->resolve(backend_->started(Operation::wait_for_death).at(0),
                    FakeReply::ok(Json{{"exit_code", 137}}));
  run();
  ASSERT_EQ(deaths_.size(), 1U);
  backend_->script(Operation::factory_reset, FakeReply::ok(info_with_sandbox("fresh0000000")));
  Outcome<ComputerInfo> reset;
  lifecycle_->factory_reset(test_support::kFakeComputerId, reset.callback());
  run();
  ASSERT_TRUE(reset.ok());
  ASSERT_TRUE(registry_->current().has_value());
  EXPECT_EQ(registry_->current()->sandbox_id, "fresh0000000");
  Outcome<ExecResult> after;
  registry_->execute(shell_command("true"), {}, after.callback());
  run();
  EXPECT_TRUE(after.ok());
}

TEST_F(LifecycleTest, DeletingTheServersComputerMakesTheNextCallCreateItAgain) {
  acquire();
  ASSERT_EQ(backend_->count(Operation::create), 1U);
  backend_->script(Operation::remove,
                   FakeReply::ok(Json{{"computer_id", "test-computer"}, {"removed", true}}));
  Outcome<bool> removed;
  lifecycle_->remove(test_support::kFakeComputerId, removed.callback());
  run();
  ASSERT_TRUE(removed.ok());
  EXPECT_FALSE(registry_->current().has_value());
  Outcome<ExecResult> after;
  registry_->execute(shell_command("true"), {}, after.callback());
  run();
  EXPECT_TRUE(after.ok());
  EXPECT_EQ(backend_->count(Operation::create), 2U);
  EXPECT_TRUE(deaths_.empty());
}

TEST_F(LifecycleTest, ACommandInterruptedByARestartFailsWithoutADeath) {
  acquire();
  backend_->script(Operation::exec, FakeReply::held());
  backend_->script(Operation::restart, FakeReply::held());
  Outcome<ExecResult> command;
  registry_->execute(shell_command("sleep 100"), {}, command.callback());
  run();
  Outcome<ComputerInfo> restarted;
  lifecycle_->restart(test_support::kFakeComputerId, restarted.callback());
  run();
  backend_->resolve(backend_->started(Operation::exec).at(0),
                    FakeReply::fail(VC_E_COMPUTER_DIED, "container stopped"));
  run();
  ASSERT_FALSE(command.ok());
  EXPECT_EQ(command.failure().status, VC_E_COMPUTER_STOPPED);
  EXPECT_NE(command.failure().message.find("was restarted, reset or deleted"), std::string::npos)
      << command.failure().message;
  backend_->resolve(backend_->started(Operation::restart).at(0), FakeReply::ok(fake_computer_info()));
  run();
  EXPECT_TRUE(restarted.ok());
  EXPECT_TRUE(deaths_.empty());
}

TEST_F(LifecycleTest, AFailedRestartLeavesTheComputerToBeAttachedAgain) {
  acquire();
  backend_->script(Operation::restart, FakeReply::fail(VC_E_UNAVAILABLE, "engine gone"));
  Outcome<ComputerInfo> restarted;
  lifecycle_->restart(test_support::kFakeComputerId, restarted.callback());
  run();
  ASSERT_FALSE(restarted.ok());
  EXPECT_EQ(restarted.failure().message, "engine gone");
  EXPECT_FALSE(registry_->current().has_value());
  EXPECT_TRUE(deaths_.empty());
}

TEST_F(LifecycleTest, OtherComputersLeaveTheRegistryAlone) {
  acquire();
  backend_->script(Operation::restart, FakeReply::ok(fake_computer_info("other")));
  Outcome<ComputerInfo> restarted;
  lifecycle_->restart("other", restarted.callback());
  run();
  ASSERT_TRUE(restarted.ok());
  EXPECT_FALSE(backend_->started(Operation::wait_for_death).at(0)->cancel_requested);
  EXPECT_EQ(backend_->started(Operation::restart).at(0)->request, (Json{{"computer_id", "other"}}));
}

TEST_F(LifecycleTest, CreateRefusesATakenIdAndValidatesOnlyOnce) {
  Json listed{{"computers", Json::array({fake_computer_info("taken")})}};
  backend_->script(Operation::list, FakeReply::ok(listed));
  backend_->script(Operation::list, FakeReply::ok(listed));
  CreateSpec spec;
  spec.computer_id = "taken";
  Outcome<ComputerInfo> created;
  lifecycle_->create(spec, {}, created.callback());
  run();
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.failure().status, VC_E_ALREADY_EXISTS);
  EXPECT_EQ(created.failure().message, "Computer 'taken' already exists.");
  EXPECT_EQ(backend_->count(Operation::create), 0U);

  spec.computer_id = "fresh";
  backend_->script(Operation::create, FakeReply::ok(fake_computer_info("fresh")));
  Outcome<ComputerInfo> fresh;
  lifecycle_->create(spec, {}, fresh.callback());
  run();
  ASSERT_TRUE(fresh.ok()) << fresh.failure().message;
  const Json request = backend_->started(Operation::create).at(0)->request;
  EXPECT_EQ(request["computer_id"], "fresh");
  EXPECT_EQ(request["temporary"], false);
  EXPECT_EQ(request["shell"], "/bin/sh");
  EXPECT_EQ(request["workspace_directory"], "/home/work");
  EXPECT_EQ(request["adopt_existing"], false) << "creating never adopts";
  EXPECT_EQ(backend_->count(Operation::validate), 1U);
}

TEST_F(LifecycleTest, CreateOnABackendWithoutEnsureImageStillCreates) {
  backend_->script(Operation::ensure_image,
                   FakeReply::fail(VC_E_UNSUPPORTED, "The fake backend does not support ensure_image."));
  backend_->script(Operation::list, FakeReply::ok(Json{{"computers", Json::array()}}));
  backend_->script(Operation::create, FakeReply::ok(fake_computer_info("fresh")));
  CreateSpec spec;
  spec.computer_id = "fresh";
  Outcome<ComputerInfo> created;
  lifecycle_->create(spec, {}, created.callback());
  run();
  ASSERT_TRUE(created.ok()) << created.failure().message;
  EXPECT_EQ(backend_->count(Operation::create), 1U);
}

TEST_F(LifecycleTest, TheServerValidatesTheBackendOnceForTheRegistryAndTheLifecycle) {
  acquire();
  backend_->script(Operation::restart, FakeReply::ok(fake_computer_info()));
  Outcome<ComputerInfo> restarted;
  lifecycle_->restart(test_support::kFakeComputerId, restarted.callback());
  run();
  ASSERT_TRUE(restarted.ok());
  EXPECT_EQ(backend_->count(Operation::validate), 1U);
}

TEST_F(LifecycleTest, SwitchingTheServersComputerAcquiresItFirstThenChangesIt) {
  Json cut_off = fake_computer_info();
  cut_off["network_access"] = false;
  backend_->script(Operation::set_network_access, FakeReply::ok(cut_off));
  Outcome<ComputerInfo> switched;
  lifecycle_->switch_server_computer(ComputerSwitch::network_access, false, switched.callback());
  run();
  ASSERT_TRUE(switched.ok()) << switched.failure().message;
  EXPECT_FALSE(switched.value->value().network_access);
  EXPECT_EQ(backend_->count(Operation::create), 1U) << "the computer did not exist yet";
  EXPECT_EQ(backend_->count(Operation::validate), 1U);
  EXPECT_EQ(backend_->started(Operation::set_network_access).at(0)->request,
            (Json{{"computer_id", test_support::kFakeComputerId}, {"enabled", false}}));
  ASSERT_TRUE(registry_->current().has_value());
  EXPECT_FALSE(registry_->current()->network_access) << "the registry learns the new state";
  EXPECT_TRUE(backend_->started(Operation::wait_for_death).at(0)->cancel_requested)
      << "switching is maintenance, not a death";
  EXPECT_TRUE(deaths_.empty());
}

TEST_F(LifecycleTest, CancellingASwitchWhileTheComputerIsAcquiredChangesNothing) {
  backend_->script(Operation::attach, FakeReply::held());
  Outcome<ComputerInfo> switched;
  auto running = lifecycle_->switch_server_computer(ComputerSwitch::desktop_environment, true,
                                                    switched.callback());
  run();
  running->cancel();
  run();
  ASSERT_FALSE(switched.ok());
  EXPECT_EQ(switched.failure().status, VC_E_CANCELLED);
  EXPECT_EQ(switched.calls, 1);
  EXPECT_EQ(backend_->count(Operation::set_desktop_environment), 0U);
}

TEST_F(LifecycleTest, CancellingARunningSwitchCancelsTheBackendOp) {
  acquire();
  backend_->script(Operation::set_desktop_environment, FakeReply::held());
  Outcome<ComputerInfo> switched;
  auto running = lifecycle_->switch_server_computer(ComputerSwitch::desktop_environment, true,
                                                    switched.callback());
  run();
  ASSERT_EQ(backend_->count(Operation::set_desktop_environment), 1U);
  std::weak_ptr<Cancellable> weak = running;
  running.reset();  // tools hold the handle weakly: the running switch must keep it alive
  ASSERT_FALSE(weak.expired());
  weak.lock()->cancel();
  run();
  EXPECT_TRUE(backend_->started(Operation::set_desktop_environment).at(0)->cancel_requested);
}

TEST_F(LifecycleTest, ALifecycleWithoutARegistryHasNoComputerToSwitch) {
  ComputerLifecycle standalone(backend_, settings_, nullptr);
  Outcome<ComputerInfo> switched;
  standalone.switch_server_computer(ComputerSwitch::network_access, true, switched.callback());
  ASSERT_FALSE(switched.ok());
  EXPECT_EQ(switched.failure().status, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(backend_->count(Operation::validate), 0U);
}

TEST_F(LifecycleTest, RemovingNothingIsNotFoundAndListsAreSortedById) {
  backend_->script(Operation::remove,
                   FakeReply::ok(Json{{"computer_id", "ghost"}, {"removed", false}}));
  Outcome<bool> removed;
  lifecycle_->remove("ghost", removed.callback());
  run();
  ASSERT_FALSE(removed.ok());
  EXPECT_EQ(removed.failure().status, VC_E_NOT_FOUND);
  EXPECT_EQ(removed.failure().message, "Computer 'ghost' was not found.");

  backend_->script(Operation::list,
                   FakeReply::ok(Json{{"computers", Json::array({fake_computer_info("zeta"),
                                                                 fake_computer_info("alpha")})}}));
  Outcome<std::vector<ComputerInfo>> listed;
  lifecycle_->list(listed.callback());
  run();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed.value->value().size(), 2U);
  EXPECT_EQ(listed.value->value()[0].computer_id, "alpha");
  backend_->script(Operation::list, FakeReply::ok(Json{{"computers", "nope"}}));
  Outcome<std::vector<ComputerInfo>> malformed;
  lifecycle_->list(malformed.callback());
  run();
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.failure().message, "The backend returned an invalid computer list.");
}

TEST_F(LifecycleTest, ExecStreamsOutputOfAStoppedComputerAfterAttachingIt) {
  Json stopped = fake_computer_info("box");
  stopped["state"] = "exited";
  stopped["network_access"] = false;
  backend_->script(Operation::list, FakeReply::ok(Json{{"computers", Json::array({stopped})}}));
  backend_->script(Operation::attach, FakeReply::ok(fake_computer_info("box")));
  backend_->script(Operation::exec, FakeReply::ok(exec_result(5), {{VC_STREAM_STDOUT, "out"},
                                                                   {VC_STREAM_STDERR, "err"}}));
  std::string out, err;
  ExecRequest request;
  request.args = {"ls", "-l"};
  Outcome<StreamedExit> exit;
  lifecycle_->exec("box", request,
                   [&](OutputStream stream, std::string_view bytes) {
                     (stream == OutputStream::stdout_stream ? out : err).append(bytes);
                   },
                   exit.callback());
  run();
  ASSERT_TRUE(exit.ok()) << exit.failure().message;
  EXPECT_EQ(exit.value->value().exit_code, 5);
  EXPECT_EQ(out, "out");
  EXPECT_EQ(err, "err");
  // attach keeps the computer's own network state rather than imposing the server's.
  EXPECT_EQ(backend_->started(Operation::attach).at(0)->request["network_access"], false);
  EXPECT_EQ(backend_->started(Operation::exec).at(0)->request["argv"], (Json{"ls", "-l"}));

  // A running computer takes the command without being attached again.
  backend_->script(Operation::list,
                   FakeReply::ok(Json{{"computers", Json::array({fake_computer_info("box")})}}));
  Outcome<StreamedExit> direct;
  lifecycle_->exec("box", request, [](OutputStream, std::string_view) {}, direct.callback());
  run();
  ASSERT_TRUE(direct.ok()) << direct.failure().message;
  EXPECT_EQ(backend_->count(Operation::attach), 1U);
  EXPECT_EQ(backend_->count(Operation::exec), 2U);

  backend_->script(Operation::list, FakeReply::ok(Json{{"computers", Json::array()}}));
  Outcome<StreamedExit> missing;
  lifecycle_->exec("gone", request, [](OutputStream, std::string_view) {}, missing.callback());
  run();
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.failure().message, "Computer 'gone' was not found.");
}

}  // namespace
}  // namespace vc::computers
