// cpp_layer_test.cpp — the SDK's C++ layer (vc-backend-1/cpp/) on its own: the generated op
// table, exactly-once completion under cancel races, typed requests, work lanes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <vc-backend-1/cpp/sdk.h>

#include "fake_host.h"

using namespace std::chrono_literals;
using nlohmann::json;
namespace sdk = vc::sdk;

namespace {

// A backend with three operations, recording what the op table hands it.
class RecordingBackend {
 public:
  explicit RecordingBackend(const vc_host_services* host)
      : handle(sdk::make_backend_handle(this)), log_(host) {}

  vc_backend handle;
  std::vector<std::string> calls;
  bool throw_in_list = false;

  const sdk::HostLog& log() const { return log_; }
  void cancel(const vc_op* op) { registry.cancel(op); }
  void destroy() { registry.close(sdk::OpRegistry::PendingWork::cancel); }

  vc_status restart(sdk::ComputerRequest request, const vc_op* op) {
    calls.push_back("restart " + request.computer_id);
    return registry.complete_now(op, sdk::OpResult::ok({{"computer_id", request.computer_id}}));
  }
  vc_status list(sdk::ListRequest, const vc_op*) {
    if (throw_in_list) throw std::runtime_error("the listing broke");
    return VC_E_BUSY;  // a rejection: never completed
  }
  vc_status exec(sdk::ExecRequest request, std::string_view stdin_bytes, const vc_op* op) {
    calls.push_back("exec " + request.resolved_argv("/bin/sh").back() + " <" +
                    std::string(stdin_bytes));
    auto pending = registry.accept(op);
    registry.emit(pending, VC_STREAM_STDOUT, "out", 3);
    registry.complete(pending, sdk::OpResult::ok({{"exit_code", 0}}));
    return VC_OK;
  }
  vc_status desktop_action(sdk::DesktopActionRequest request, const vc_op* op) {
    calls.push_back("desktop " + request.action + " " + request.action_document.dump());
    return registry.complete_now(op, sdk::OpResult::ok(json::object()));
  }

  sdk::OpRegistry registry;

 private:
  sdk::HostLog log_;
};

class CppLayerTest : public ::testing::Test {
 protected:
  vc_test::FakeHost host_{"/nonexistent"};
  RecordingBackend backend_{host_.services()};
  vc_backend* self() { return &backend_.handle; }
};

TEST_F(CppLayerTest, TheOpTableHasASlotPerMemberAndNullElsewhere) {
  const vc_backend_ops* ops = self()->ops;
  EXPECT_EQ(ops->struct_size, sizeof(vc_backend_ops));
  EXPECT_NE(ops->restart, nullptr);
  EXPECT_NE(ops->list, nullptr);
  EXPECT_NE(ops->exec, nullptr);
  EXPECT_EQ(ops->create, nullptr);
  EXPECT_EQ(ops->wait_for_death, nullptr);
  auto* desktop = static_cast<const vc_backend_desktop_control*>(
      ops->get_extension(self(), VC_EXT_BACKEND_DESKTOP_CONTROL));
  ASSERT_NE(desktop, nullptr);
  EXPECT_EQ(ops->get_extension(self(), "org.example.other/1"), nullptr);

  vc_test::FakeOp op;
  std::string request = R"({"computer_id":"box","action":"click","x":1})";
  EXPECT_EQ(desktop->desktop_action(self(), request.data(), request.size(), op.get()), VC_OK);
  EXPECT_EQ(backend_.calls.back(), R"(desktop click {"action":"click","x":1})");
}

TEST_F(CppLayerTest, ThunksParseTheTypedRequest) {
  vc_test::FakeOp op;
  std::string request = R"({"computer_id":"box","unknown":"ignored"})";
  EXPECT_EQ(self()->ops->restart(self(), request.data(), request.size(), op.get()), VC_OK);
  EXPECT_EQ(op.status(), VC_OK);
  EXPECT_EQ(backend_.calls.back(), "restart box");

  vc_test::FakeOp exec;
  std::string exec_request =
      R"({"computer_id":"box","command":"ls","timeout_ms":5,"output_limit":0})";
  const uint8_t input[] = {'i', 'n'};
  EXPECT_EQ(self()->ops->exec(self(), exec_request.data(), exec_request.size(), input, 2,
                              exec.get()),
            VC_OK);
  EXPECT_EQ(backend_.calls.back(), "exec ls <in");
  EXPECT_EQ(exec.out(), "out");
  EXPECT_EQ(exec.completions(), 1);
}

TEST_F(CppLayerTest, AnInvalidRequestCompletesAtOnceWithTheReason) {
  vc_test::FakeOp op;
  std::string request = R"({"computer_id":"Not-Valid"})";
  EXPECT_EQ(self()->ops->restart(self(), request.data(), request.size(), op.get()), VC_OK);
  EXPECT_EQ(op.completions(), 1);
  EXPECT_EQ(op.status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(op.message(), std::string("Invalid restart request: ") + sdk::kComputerIdRule);
  EXPECT_TRUE(backend_.calls.empty());
}

TEST_F(CppLayerTest, RejectionsAndExceptionsNeverComplete) {
  vc_test::FakeOp not_json, busy, thrown;
  std::string garbage = "[1,2";
  EXPECT_EQ(self()->ops->list(self(), garbage.data(), garbage.size(), not_json.get()),
            VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(self()->ops->list(self(), nullptr, 0, busy.get()), VC_E_BUSY);  // NULL means {}
  backend_.throw_in_list = true;
  EXPECT_EQ(self()->ops->list(self(), nullptr, 0, thrown.get()), VC_E_FAILED);
  std::this_thread::sleep_for(10ms);
  EXPECT_EQ(not_json.completions() + busy.completions() + thrown.completions(), 0);
  auto log = host_.log_lines();
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log.back(), "list failed: the listing broke");
}

TEST(OpRegistry, CompletesOnceAndIgnoresLateCancels) {
  sdk::OpRegistry registry;
  vc_test::FakeOp op;
  auto pending = registry.accept(op.get());
  int hooks = 0;
  pending->on_cancel([&] { ++hooks; });
  registry.cancel(op.get());
  EXPECT_TRUE(pending->cancel_requested());
  EXPECT_EQ(hooks, 1);
  EXPECT_TRUE(registry.complete(pending, sdk::OpResult::failed(sdk::cancelled_failure())));
  EXPECT_FALSE(registry.complete(pending, sdk::OpResult::ok(json::object())));
  registry.cancel(op.get());  // after completion: a no-op
  EXPECT_EQ(hooks, 1);
  EXPECT_EQ(op.completions(), 1);
  EXPECT_EQ(op.status(), VC_E_CANCELLED);
  EXPECT_EQ(op.message(), "The operation was cancelled.");
}

TEST(OpRegistry, AReusedAddressIsANewOp) {
  sdk::OpRegistry registry;
  vc_test::FakeOp op;
  auto first = registry.accept(op.get());
  ASSERT_TRUE(registry.complete(first, sdk::OpResult::ok(json::object())));
  auto second = registry.accept(op.get());  // the host reused the vc_op
  EXPECT_FALSE(registry.complete(first, sdk::OpResult::ok(json::object())));
  EXPECT_TRUE(registry.complete(second, sdk::OpResult::ok(json::object())));
  EXPECT_EQ(op.completions(), 2);
}

TEST(OpRegistry, RacingCompletionsCompleteOnce) {
  for (int round = 0; round < 200; ++round) {
    sdk::OpRegistry registry;
    vc_test::FakeOp op;
    auto pending = registry.accept(op.get());
    pending->on_cancel(
        [&] { registry.complete(pending, sdk::OpResult::failed(sdk::cancelled_failure())); });
    std::thread worker([&] { registry.complete(pending, sdk::OpResult::ok(json::object())); });
    registry.cancel(op.get());
    worker.join();
    ASSERT_EQ(op.completions(), 1);
    ASSERT_EQ(op.violations(), 0);
  }
}

TEST(OpRegistry, DispatchedHooksRunWhereTheDispatcherSaysAndSeeTheCurrentHook) {
  std::vector<std::function<void()>> posted;
  sdk::OpRegistry registry([&](std::function<void()> run) { posted.push_back(std::move(run)); });
  vc_test::FakeOp op;
  auto pending = registry.accept(op.get());
  std::string ran;
  pending->on_cancel([&] { ran = "first"; });
  registry.cancel(op.get());
  EXPECT_EQ(ran, "");
  pending->on_cancel([&] { ran += "second"; });  // already cancelled: runs at once
  ASSERT_EQ(posted.size(), 1u);
  posted[0]();
  EXPECT_EQ(ran, "secondsecond");
}

TEST(OpRegistry, CloseSilencesTheHost) {
  sdk::OpRegistry registry;
  vc_test::FakeOp op;
  auto pending = registry.accept(op.get());
  bool hooked = false;
  pending->on_cancel([&] { hooked = true; });
  registry.close(sdk::OpRegistry::PendingWork::cancel);
  EXPECT_TRUE(hooked);
  EXPECT_TRUE(pending->cancel_requested());
  EXPECT_EQ(registry.emit(pending, VC_STREAM_STDOUT, "x", 1), VC_NOTE_TRUNCATED);
  EXPECT_FALSE(registry.complete(pending, sdk::OpResult::ok(json::object())));
  EXPECT_EQ(op.completions(), 0);
}

TEST(Requests, CreateChecksItsFieldsInSchemaOrder) {
  json create = {{"computer_id", "box"}, {"temporary", false}, {"network_access", true},
                 {"desktop_environment", false}, {"workspace_directory", "/workspace"},
                 {"shell", "/bin/bash"}, {"resources", {{"memory", "2g"}, {"cpus", 1.5}}}};
  auto parsed = sdk::CreateRequest::parse(create);
  EXPECT_EQ(parsed.memory_bytes, int64_t{2} << 30);
  EXPECT_EQ(parsed.cpus, 1.5);
  EXPECT_FALSE(parsed.image);
  auto why = [](json doc) {
    try {
      sdk::CreateRequest::parse(doc);
    } catch (const sdk::InvalidRequest& invalid) {
      return std::string(invalid.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(why(create), "accepted");
  json relative = create;
  relative["workspace_directory"] = "workspace";
  EXPECT_EQ(why(relative), "workspace_directory must be an absolute path");
  json huge = create;
  huge["resources"]["memory"] = "12t";
  EXPECT_EQ(why(huge), "resources.memory must be a size such as 2g");
  json flags = create;
  flags["temporary"] = "no";
  EXPECT_EQ(why(flags), "temporary, network_access and desktop_environment must be booleans");
}

TEST(Requests, ExecNeedsExactlyOneOfCommandAndArgv) {
  json exec = {{"computer_id", "box"}, {"argv", {"ls", "-l"}}, {"timeout_ms", 10},
               {"output_limit", 0}};
  EXPECT_EQ(sdk::ExecRequest::parse(exec).resolved_argv("/bin/sh"),
            (std::vector<std::string>{"ls", "-l"}));
  exec["command"] = "ls";
  EXPECT_THROW(sdk::ExecRequest::parse(exec), sdk::InvalidRequest);
  exec.erase("argv");
  EXPECT_EQ(sdk::ExecRequest::parse(exec).resolved_argv("/bin/zsh"),
            (std::vector<std::string>{"/bin/zsh", "-c", "ls"}));
  exec["output_limit"] = -1;
  EXPECT_THROW(sdk::ExecRequest::parse(exec), sdk::InvalidRequest);
}

TEST(WorkLanes, OneLaneInOrderLanesInParallelQueuedTasksWithdrawable) {
  sdk::WorkLanes lanes;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<int> order;
  std::atomic<bool> other_lane_ran{false};
  lanes.post("a", [released] { released.wait(); });
  lanes.post("a", [&] { order.push_back(1); });
  auto withdrawn = lanes.post("a", [&] { order.push_back(2); });
  lanes.post("a", [&] { order.push_back(3); });
  lanes.post("b", [&] { other_lane_ran = true; });
  EXPECT_TRUE(lanes.withdraw("a", withdrawn));
  EXPECT_FALSE(lanes.withdraw("b", withdrawn));
  for (int i = 0; i < 200 && !other_lane_ran; ++i) std::this_thread::sleep_for(5ms);
  EXPECT_TRUE(other_lane_ran);  // while lane a is still blocked
  release.set_value();
  std::promise<void> drained;
  lanes.post("a", [&] { drained.set_value(); });
  drained.get_future().wait();
  EXPECT_EQ(order, std::vector<int>({1, 3}));
  lanes.stop_and_join();
  EXPECT_EQ(lanes.post("a", [] {}), 0u);
}

TEST(CancelScope, RunsTheCurrentCancellerOnceAndLateOnesAtOnce) {
  auto scope = sdk::CancelScope::make();
  int first = 0, late = 0;
  scope->set_canceller([&] { ++first; });
  scope->cancel();
  scope->cancel();
  EXPECT_EQ(first, 1);
  EXPECT_TRUE(scope->cancelled());
  scope->set_canceller([&] { ++late; });
  EXPECT_EQ(late, 1);
}

}  // namespace
