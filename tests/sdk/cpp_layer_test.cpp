// cpp_layer_test.cpp — the SDK's C++ layer (vc-backend-1/cpp/) on its own: the generated op
// table, exactly-once completion under cancel races, typed requests, work lanes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <string_view>
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
    return VC_E_BUSY;  // a member's rejection: the op table completes the op instead
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

// A backend with the five checkpoint members publishes the checkpoints extension; the
// RecordingBackend above, without them, does not.
class CheckpointingBackend {
 public:
  explicit CheckpointingBackend(const vc_host_services* host)
      : handle(sdk::make_backend_handle(this)), log_(host) {}
  vc_backend handle;
  std::vector<std::string> calls;
  const sdk::HostLog& log() const { return log_; }
  void cancel(const vc_op* op) { registry.cancel(op); }
  void destroy() { registry.close(sdk::OpRegistry::PendingWork::cancel); }

  vc_status create_checkpoint(sdk::CheckpointRequest request, const vc_op* op) {
    return record("create " + request.computer_id + " " + request.name, op);
  }
  vc_status list_checkpoints(sdk::ComputerRequest request, const vc_op* op) {
    return record("list " + request.computer_id, op);
  }
  vc_status restore_checkpoint(sdk::CheckpointRequest request, const vc_op* op) {
    return record("restore " + request.computer_id + " " + request.name, op);
  }
  vc_status fork_checkpoint(sdk::ForkRequest request, const vc_op* op) {
    return record("fork " + request.computer_id + " " + request.new_computer_id + " " +
                      request.name.value_or("<current>"),
                  op);
  }
  vc_status delete_checkpoint(sdk::CheckpointRequest request, const vc_op* op) {
    return record("delete " + request.computer_id + " " + request.name, op);
  }
  sdk::OpRegistry registry;

 private:
  vc_status record(std::string call, const vc_op* op) {
    calls.push_back(std::move(call));
    return registry.complete_now(op, sdk::OpResult::ok(json::object()));
  }
  sdk::HostLog log_;
};

TEST_F(CppLayerTest, FiveCheckpointMembersPublishTheCheckpointsExtension) {
  EXPECT_EQ(self()->ops->get_extension(self(), VC_EXT_BACKEND_CHECKPOINTS), nullptr);

  CheckpointingBackend backend(host_.services());
  vc_backend* handle = &backend.handle;
  EXPECT_EQ(handle->ops->get_extension(handle, VC_EXT_BACKEND_DESKTOP_CONTROL), nullptr);
  const auto* table = static_cast<const vc_backend_checkpoints*>(
      handle->ops->get_extension(handle, VC_EXT_BACKEND_CHECKPOINTS));
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->struct_size, sizeof(vc_backend_checkpoints));

  const auto call = [&](vc_async_op_fn fn, const std::string& request) {
    vc_test::FakeOp op;
    EXPECT_EQ(fn(handle, request.data(), request.size(), op.get()), VC_OK);
    EXPECT_EQ(op.completions(), 1);
    return std::make_pair(op.status(), op.message());
  };
  call(table->create_checkpoint, R"({"computer_id":"box","name":"v1.2_ok-name"})");
  call(table->list_checkpoints, R"({"computer_id":"box"})");
  call(table->restore_checkpoint, R"({"computer_id":"box","name":"v1.2_ok-name"})");
  call(table->fork_checkpoint, R"({"computer_id":"box","new_computer_id":"copy"})");
  call(table->fork_checkpoint, R"({"computer_id":"box","new_computer_id":"copy","name":"a"})");
  call(table->delete_checkpoint, R"({"computer_id":"box","name":"a"})");
  EXPECT_EQ(backend.calls, (std::vector<std::string>{
                               "create box v1.2_ok-name", "list box", "restore box v1.2_ok-name",
                               "fork box copy <current>", "fork box copy a", "delete box a"}));

  // Names and the fork's target are checked before the member runs.
  for (const char* request :
       {R"({"computer_id":"box","name":"has space"})", R"({"computer_id":"box","name":".hidden"})",
        R"({"computer_id":"box"})", R"({"computer_id":"box","name":7})"}) {
    const auto [status, message] = call(table->create_checkpoint, request);
    EXPECT_EQ(status, VC_E_INVALID_ARGUMENT) << request;
    EXPECT_EQ(message, std::string("Invalid create_checkpoint request: name: ") +
                           sdk::kCheckpointNameRule)
        << request;
  }
  const std::string too_long = R"({"computer_id":"box","name":")" + std::string(64, 'a') + "\"}";
  EXPECT_EQ(call(table->restore_checkpoint, too_long).first, VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(call(table->fork_checkpoint, R"({"computer_id":"box","new_computer_id":"box"})").second,
            "Invalid fork_checkpoint request: new_computer_id must differ from computer_id");
  EXPECT_EQ(call(table->fork_checkpoint, R"({"computer_id":"box","new_computer_id":"Bad"})").first,
            VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(backend.calls.size(), 6u) << "no refused request reached the backend";
  backend.destroy();
}

// A backend with the five process members publishes the processes extension; one with four of
// them (no list_processes) does not.
class ProcessBackend {
 public:
  explicit ProcessBackend(const vc_host_services* host)
      : handle(sdk::make_backend_handle(this)), log_(host) {}
  vc_backend handle;
  std::vector<std::string> calls;
  const sdk::HostLog& log() const { return log_; }
  void cancel(const vc_op* op) { registry.cancel(op); }
  void destroy() { registry.close(sdk::OpRegistry::PendingWork::cancel); }

  vc_status start_process(sdk::ProcessStartRequest request, const vc_op* op) {
    std::string call = "start " + request.computer_id;
    for (const auto& arg : request.resolved_argv("/bin/sh")) call += " [" + arg + "]";
    return record(std::move(call), op);
  }
  vc_status read_process(sdk::ProcessReadRequest request, const vc_op* op) {
    return record("read " + request.computer_id + " " + request.process_id, op);
  }
  vc_status write_process(sdk::ProcessWriteRequest request, const vc_op* op) {
    return record("write " + request.computer_id + " " + request.process_id + " " + request.input,
                  op);
  }
  vc_status kill_process(sdk::ProcessKillRequest request, const vc_op* op) {
    return record("kill " + request.computer_id + " " + request.process_id + " " + request.signal,
                  op);
  }
  vc_status list_processes(sdk::ComputerRequest request, const vc_op* op) {
    return record("list " + request.computer_id, op);
  }
  sdk::OpRegistry registry;

 private:
  vc_status record(std::string call, const vc_op* op) {
    calls.push_back(std::move(call));
    return registry.complete_now(op, sdk::OpResult::ok(json::object()));
  }
  sdk::HostLog log_;
};

class FourProcessMembersBackend {
 public:
  explicit FourProcessMembersBackend(const vc_host_services* host)
      : handle(sdk::make_backend_handle(this)), log_(host) {}
  vc_backend handle;
  const sdk::HostLog& log() const { return log_; }
  void cancel(const vc_op* op) { registry.cancel(op); }
  void destroy() { registry.close(sdk::OpRegistry::PendingWork::cancel); }
  vc_status start_process(sdk::ProcessStartRequest, const vc_op* op) { return done(op); }
  vc_status read_process(sdk::ProcessReadRequest, const vc_op* op) { return done(op); }
  vc_status write_process(sdk::ProcessWriteRequest, const vc_op* op) { return done(op); }
  vc_status kill_process(sdk::ProcessKillRequest, const vc_op* op) { return done(op); }
  vc_status desktop_action(sdk::DesktopActionRequest, const vc_op* op) { return done(op); }
  sdk::OpRegistry registry;

 private:
  vc_status done(const vc_op* op) {
    return registry.complete_now(op, sdk::OpResult::ok(json::object()));
  }
  sdk::HostLog log_;
};

TEST_F(CppLayerTest, FiveProcessMembersPublishTheProcessesExtensionAndFourDoNot) {
  EXPECT_EQ(self()->ops->get_extension(self(), VC_EXT_BACKEND_PROCESSES), nullptr);

  FourProcessMembersBackend four(host_.services());
  ASSERT_NE(four.handle.ops->get_extension, nullptr) << "desktop_action publishes an extension";
  EXPECT_NE(four.handle.ops->get_extension(&four.handle, VC_EXT_BACKEND_DESKTOP_CONTROL), nullptr);
  EXPECT_EQ(four.handle.ops->get_extension(&four.handle, VC_EXT_BACKEND_PROCESSES), nullptr)
      << "without list_processes the extension is not published";

  ProcessBackend backend(host_.services());
  vc_backend* handle = &backend.handle;
  EXPECT_EQ(handle->ops->get_extension(handle, VC_EXT_BACKEND_DESKTOP_CONTROL), nullptr);
  EXPECT_EQ(handle->ops->get_extension(handle, VC_EXT_BACKEND_CHECKPOINTS), nullptr);
  const auto* table = static_cast<const vc_backend_processes*>(
      handle->ops->get_extension(handle, VC_EXT_BACKEND_PROCESSES));
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->struct_size, sizeof(vc_backend_processes));
  EXPECT_NE(table->start_process, nullptr);
  EXPECT_NE(table->read_process, nullptr);
  EXPECT_NE(table->write_process, nullptr);
  EXPECT_NE(table->kill_process, nullptr);
  EXPECT_NE(table->list_processes, nullptr);

  const auto call = [&](vc_async_op_fn fn, const std::string& request) {
    vc_test::FakeOp op;
    EXPECT_EQ(fn(handle, request.data(), request.size(), op.get()), VC_OK);
    EXPECT_EQ(op.completions(), 1);
    return std::make_pair(op.status(), op.message());
  };
  call(table->start_process, R"({"computer_id":"box","command":"sleep 5"})");
  call(table->start_process, R"({"computer_id":"box","argv":["ls","-l"],"pty":true})");
  call(table->read_process, R"({"computer_id":"box","process_id":"p1"})");
  call(table->write_process, R"({"computer_id":"box","process_id":"p12","input":"hi"})");
  call(table->kill_process, R"({"computer_id":"box","process_id":"p1"})");
  call(table->list_processes, R"({"computer_id":"box"})");
  EXPECT_EQ(backend.calls,
            (std::vector<std::string>{"start box [/bin/sh] [-c] [sleep 5]", "start box [ls] [-l]",
                                      "read box p1", "write box p12 hi", "kill box p1 TERM",
                                      "list box"}));

  // A request beyond the bounds is answered before the member runs, with the field named.
  EXPECT_EQ(call(table->read_process, R"({"computer_id":"box","process_id":"p0"})"),
            std::make_pair(VC_E_INVALID_ARGUMENT,
                           std::string("Invalid read_process request: process_id: ") +
                               sdk::kProcessIdRule));
  EXPECT_EQ(call(table->start_process, R"({"computer_id":"box"})").second,
            "Invalid start_process request: exactly one of command and argv is required");
  EXPECT_EQ(call(table->kill_process, R"({"computer_id":"box","process_id":"p1","signal":"9"})")
                .first,
            VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(call(table->list_processes, R"({"computer_id":"Bad"})").first,
            VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(backend.calls.size(), 6u) << "no refused request reached the backend";
  backend.destroy();
  four.destroy();
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

TEST_F(CppLayerTest, WouldBeRejectionsAndExceptionsCompleteAtOnceWithAMessage) {
  vc_test::FakeOp not_json, busy, thrown;
  std::string garbage = "[1,2";
  EXPECT_EQ(self()->ops->list(self(), garbage.data(), garbage.size(), not_json.get()), VC_OK);
  EXPECT_EQ(self()->ops->list(self(), nullptr, 0, busy.get()), VC_OK);  // NULL means {}
  backend_.throw_in_list = true;
  EXPECT_EQ(self()->ops->list(self(), nullptr, 0, thrown.get()), VC_OK);

  EXPECT_EQ(not_json.completions(), 1);
  EXPECT_EQ(not_json.status(), VC_E_INVALID_ARGUMENT);
  EXPECT_EQ(not_json.message(), "Invalid list request: it is not a JSON object");
  EXPECT_EQ(busy.completions(), 1);
  EXPECT_EQ(busy.status(), VC_E_BUSY);
  EXPECT_EQ(busy.message(), "The backend refused the list request (status -8) without saying why.");
  EXPECT_EQ(thrown.completions(), 1);
  EXPECT_EQ(thrown.status(), VC_E_FAILED);
  EXPECT_EQ(thrown.message(), "The backend failed list: the listing broke");
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

TEST(OpRegistry, OpsAreKeyedByTheHostsIdSoAStaleCancelByIdMissesTheNextOp) {
  sdk::OpRegistry registry;
  vc_test::FakeOp op;
  const uint64_t first_id = op.id();
  ASSERT_NE(first_id, 0u);
  auto first = registry.accept(op.get());
  EXPECT_EQ(first->id(), first_id);
  ASSERT_TRUE(registry.complete(first, sdk::OpResult::ok(json::object())));

  op.renumber();  // the host reused the address for a new op, with a new id
  ASSERT_NE(op.id(), first_id);
  auto second = registry.accept(op.get());
  int hooks = 0;
  second->on_cancel([&] { ++hooks; });
  registry.cancel_id(first_id);  // a cancel that outlived its op
  EXPECT_EQ(hooks, 0);
  EXPECT_FALSE(second->cancel_requested());
  registry.cancel_id(op.id());
  EXPECT_EQ(hooks, 1);
  EXPECT_TRUE(registry.complete(second, sdk::OpResult::cancelled()));
  EXPECT_EQ(op.completions(), 2);
}

TEST(OpRegistry, Under10HostsOpsAreKeyedByAddress) {
  sdk::OpRegistry registry;
  vc_test::FakeOp a, b;
  a.as_abi_1_0();
  b.as_abi_1_0();
  EXPECT_EQ(sdk::op_id(a.get()), 0u);
  auto pa = registry.accept(a.get());
  auto pb = registry.accept(b.get());
  EXPECT_EQ(pa->id(), 0u);
  registry.cancel(b.get());
  EXPECT_FALSE(pa->cancel_requested());
  EXPECT_TRUE(pb->cancel_requested());
  registry.cancel_id(0);  // no id: nothing to look up
  EXPECT_FALSE(pa->cancel_requested());
  EXPECT_TRUE(registry.complete(pa, sdk::OpResult::ok(json::object())));
  EXPECT_TRUE(registry.complete(pb, sdk::OpResult::cancelled()));
  EXPECT_EQ(a.completions() + b.completions(), 2);
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

TEST(Requests, CreateCarriesItsOptionalMountsForTheBackendToCheck) {
  json create = {{"computer_id", "box"}, {"temporary", false}, {"network_access", true},
                 {"desktop_environment", false}, {"workspace_directory", "/workspace"},
                 {"shell", "/bin/bash"}};
  EXPECT_FALSE(sdk::CreateRequest::parse(create).mounts);
  create["mounts"] = json::array({{{"host_path", "/srv/p"}, {"computer_path", "/workspace/p"}}});
  auto parsed = sdk::CreateRequest::parse(create);
  ASSERT_TRUE(parsed.mounts);
  EXPECT_EQ((*parsed.mounts)[0]["host_path"], "/srv/p");
  create["mounts"] = "/srv/p:/workspace/p";
  try {
    sdk::CreateRequest::parse(create);
    FAIL() << "a mounts string was accepted";
  } catch (const sdk::InvalidRequest& invalid) {
    EXPECT_STREQ(invalid.what(), "mounts must be an array");
  }
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

// The typed requests of the processes extension: what each refuses, in a sentence naming the
// field, and the defaults of what they accept.
template <class Request>
std::string why_refused(const json& doc) {
  try {
    Request::parse(doc);
  } catch (const sdk::InvalidRequest& invalid) {
    return invalid.what();
  }
  return "accepted";
}

TEST(Requests, ProcessStartChecksEveryFieldAndDefaultsTheRest) {
  const json command = {{"computer_id", "box"}, {"command", "make -j2"}};
  const auto parsed = sdk::ProcessStartRequest::parse(command);
  EXPECT_EQ(parsed.computer_id, "box");
  EXPECT_EQ(parsed.command, "make -j2");
  EXPECT_TRUE(parsed.argv.empty());
  EXPECT_FALSE(parsed.working_directory);
  EXPECT_TRUE(parsed.env.empty());
  EXPECT_FALSE(parsed.pty);
  EXPECT_EQ(parsed.rows, 24);
  EXPECT_EQ(parsed.cols, 80);
  EXPECT_EQ(parsed.wait_ms, 1000);
  EXPECT_EQ(parsed.max_bytes, 65536);
  EXPECT_EQ(parsed.resolved_argv("/bin/bash"),
            (std::vector<std::string>{"/bin/bash", "-c", "make -j2"}));

  const json full = {{"computer_id", "box"},
                     {"argv", {"python3", "-i"}},
                     {"working_directory", "/srv"},
                     {"env", {{"LANG", "C.UTF-8"}, {"_x1", ""}}},
                     {"pty", true},
                     {"rows", 2},
                     {"cols", 1000},
                     {"wait_ms", 0},
                     {"max_bytes", 1048576}};
  const auto all = sdk::ProcessStartRequest::parse(full);
  EXPECT_EQ(all.resolved_argv("/bin/sh"), (std::vector<std::string>{"python3", "-i"}));
  EXPECT_EQ(all.working_directory, "/srv");
  EXPECT_EQ(all.env, (std::vector<std::pair<std::string, std::string>>{{"LANG", "C.UTF-8"},
                                                                       {"_x1", ""}}));
  EXPECT_TRUE(all.pty);
  EXPECT_EQ(all.rows, 2);
  EXPECT_EQ(all.cols, 1000);
  EXPECT_EQ(all.wait_ms, 0);
  EXPECT_EQ(all.max_bytes, 1048576);

  const auto why = [&](const json& changes, const std::vector<std::string>& erase = {}) {
    json doc = command;
    doc.merge_patch(changes);
    for (const auto& key : erase) doc.erase(key);
    return why_refused<sdk::ProcessStartRequest>(doc);
  };
  EXPECT_EQ(why(json::object()), "accepted");
  EXPECT_EQ(why({{"argv", {"ls"}}}), "exactly one of command and argv is required");
  EXPECT_EQ(why(json::object(), {"command"}), "exactly one of command and argv is required");
  EXPECT_EQ(why({{"command", ""}}), "command must be a non-empty string");
  EXPECT_EQ(why({{"computer_id", "Box"}}), sdk::kComputerIdRule);

  const std::string argv_rule = "argv must be an array of 1 to 1024 strings";
  EXPECT_EQ(why({{"argv", json::array()}}, {"command"}), argv_rule);
  EXPECT_EQ(why({{"argv", "ls"}}, {"command"}), argv_rule);
  EXPECT_EQ(why({{"argv", json(std::vector<std::string>(1025, "a"))}}, {"command"}), argv_rule);
  EXPECT_EQ(why({{"argv", json(std::vector<std::string>(1024, "a"))}}, {"command"}), "accepted");
  EXPECT_EQ(why({{"argv", {"ls", 1}}}, {"command"}), "argv must hold strings only");
  EXPECT_EQ(why({{"argv", {""}}}, {"command"}), "argv[0] must not be empty");
  EXPECT_EQ(why({{"command", std::string(64 * 1024 + 1, 'x')}}),
            "the command is 65537 bytes; at most 65536 bytes are allowed");

  EXPECT_EQ(why({{"working_directory", "srv"}}), "working_directory must be an absolute path");
  EXPECT_EQ(why({{"working_directory", ""}}), "working_directory must be a non-empty string");

  EXPECT_EQ(why({{"env", {{"1X", "v"}}}}),
            "env: \"1X\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(why({{"env", {{"A-B", "v"}}}}),
            "env: \"A-B\" is not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
  EXPECT_EQ(why({{"env", {{"A", 1}}}}), "env.A must be a string");
  EXPECT_EQ(why({{"env", "A=1"}}), "env must be an object of at most 64 variables");
  json many = json::object();
  for (int i = 0; i < 65; ++i) many["V" + std::to_string(i)] = "v";
  EXPECT_EQ(why({{"env", many}}), "env must be an object of at most 64 variables");
  many.erase("V64");
  EXPECT_EQ(why({{"env", many}}), "accepted");
  EXPECT_EQ(why({{"env", {{"BIG", std::string(64 * 1024, 'v')}}}}),
            "env is 65541 bytes; at most 65536 bytes are allowed");

  EXPECT_EQ(why({{"pty", "yes"}}), "pty must be a boolean");
  EXPECT_EQ(why({{"rows", 1}}), "rows must be an integer from 2 to 500");
  EXPECT_EQ(why({{"rows", 501}}), "rows must be an integer from 2 to 500");
  EXPECT_EQ(why({{"cols", 9}}), "cols must be an integer from 10 to 1000");
  EXPECT_EQ(why({{"cols", 80.5}}), "cols must be an integer from 10 to 1000");
  EXPECT_EQ(why({{"wait_ms", -1}}), "wait_ms must be an integer from 0 to 30000");
  EXPECT_EQ(why({{"wait_ms", 30001}}), "wait_ms must be an integer from 0 to 30000");
  EXPECT_EQ(why({{"wait_ms", "1000"}}), "wait_ms must be an integer from 0 to 30000");
  EXPECT_EQ(why({{"max_bytes", 0}}), "max_bytes must be an integer from 1 to 1048576");
  EXPECT_EQ(why({{"max_bytes", 1048577}}), "max_bytes must be an integer from 1 to 1048576");
}

TEST(Requests, ProcessReadWriteAndKillCheckTheProcessIdAndTheirBounds) {
  const std::string id_rule = std::string("process_id: ") + sdk::kProcessIdRule;
  for (const char* bad : {"x1", "p0", "p01", "p", "P1", "p1a", "p12345678901", "", " p1"}) {
    const json doc = {{"computer_id", "box"}, {"process_id", bad}, {"input", ""}};
    EXPECT_EQ(why_refused<sdk::ProcessReadRequest>(doc), id_rule) << bad;
    EXPECT_EQ(why_refused<sdk::ProcessWriteRequest>(doc), id_rule) << bad;
    EXPECT_EQ(why_refused<sdk::ProcessKillRequest>(doc), id_rule) << bad;
  }
  EXPECT_EQ(why_refused<sdk::ProcessReadRequest>({{"computer_id", "box"}, {"process_id", 1}}),
            id_rule);
  EXPECT_EQ(why_refused<sdk::ProcessReadRequest>({{"computer_id", "box"}}), id_rule);
  EXPECT_EQ(why_refused<sdk::ProcessReadRequest>({{"process_id", "p1"}}), sdk::kComputerIdRule);

  // read_process
  const auto read = sdk::ProcessReadRequest::parse({{"computer_id", "box"}, {"process_id", "p1"}});
  EXPECT_EQ(read.process_id, "p1");
  EXPECT_EQ(read.wait_ms, 1000);
  EXPECT_EQ(read.max_bytes, 65536);
  EXPECT_FALSE(read.from);
  const auto from = sdk::ProcessReadRequest::parse(
      {{"computer_id", "box"}, {"process_id", "p9999999999"}, {"from", {{"stdout", 7}}}});
  EXPECT_EQ(from.from, std::make_pair(std::int64_t{7}, std::int64_t{0}));
  const auto why_read = [](const json& changes) {
    json doc = {{"computer_id", "box"}, {"process_id", "p1"}};
    doc.merge_patch(changes);
    return why_refused<sdk::ProcessReadRequest>(doc);
  };
  EXPECT_EQ(why_read({{"wait_ms", 30000}, {"max_bytes", 1}}), "accepted");
  EXPECT_EQ(why_read({{"wait_ms", 30001}}), "wait_ms must be an integer from 0 to 30000");
  EXPECT_EQ(why_read({{"max_bytes", 0}}), "max_bytes must be an integer from 1 to 1048576");
  EXPECT_EQ(why_read({{"from", 3}}), "from must be an object");
  EXPECT_EQ(why_read({{"from", {{"stderr", -1}}}}),
            "stderr must be an integer from 0 to 9223372036854775807");

  // write_process
  const auto write = sdk::ProcessWriteRequest::parse(
      {{"computer_id", "box"}, {"process_id", "p2"}, {"input", "yes\n"}});
  EXPECT_EQ(write.input, "yes\n");
  EXPECT_FALSE(write.close_stdin);
  EXPECT_EQ(write.wait_ms, 1000);
  EXPECT_EQ(write.max_bytes, 65536);
  const auto why_write = [](const json& changes) {
    json doc = {{"computer_id", "box"}, {"process_id", "p1"}, {"input", ""}};
    doc.merge_patch(changes);
    return why_refused<sdk::ProcessWriteRequest>(doc);
  };
  EXPECT_EQ(why_write({{"close_stdin", true}}), "accepted");
  EXPECT_EQ(why_write({{"input", std::string(64 * 1024, 'x')}}), "accepted");
  EXPECT_EQ(why_write({{"input", std::string(64 * 1024 + 1, 'x')}}),
            "input is 65537 bytes; at most 65536 bytes can be written at once");
  EXPECT_EQ(why_write({{"input", nullptr}}), "input must be a string");
  EXPECT_EQ(why_write({{"input", 5}}), "input must be a string");
  EXPECT_EQ(why_write({{"close_stdin", "yes"}}), "close_stdin must be a boolean");
  EXPECT_EQ(why_write({{"wait_ms", -5}}), "wait_ms must be an integer from 0 to 30000");

  // kill_process
  const auto kill = sdk::ProcessKillRequest::parse({{"computer_id", "box"}, {"process_id", "p3"}});
  EXPECT_EQ(kill.signal, "TERM");
  for (auto name : sdk::kProcessSignalNames) {
    const json doc = {{"computer_id", "box"}, {"process_id", "p3"}, {"signal", name}};
    EXPECT_EQ(sdk::ProcessKillRequest::parse(doc).signal, name);
  }
  const std::string signal_rule =
      "signal must be one of TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP, CONT, WINCH";
  for (const json& bad : {json("SIGTERM"), json("term"), json(9), json(""), json("SEGV")}) {
    const json doc = {{"computer_id", "box"}, {"process_id", "p3"}, {"signal", bad}};
    EXPECT_EQ(why_refused<sdk::ProcessKillRequest>(doc), signal_rule) << bad.dump();
  }
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

TEST(RunInLane, TheOpCompletesWithWhatTheWorkReturns) {
  sdk::OpRegistry registry;
  sdk::WorkLanes lanes;
  vc_test::FakeOp op;
  ASSERT_EQ(sdk::run_in_lane(registry, lanes, op.get(), "pc",
                             [](const sdk::Pending&, sdk::CancelScope&) {
                               return sdk::OpResult::ok({{"answer", 42}});
                             }),
            VC_OK);
  ASSERT_TRUE(op.wait());
  EXPECT_EQ(op.status(), VC_OK);
  EXPECT_EQ(json::parse(op.json())["answer"], 42);
  lanes.stop_and_join();
  EXPECT_EQ(op.completions(), 1);
}

TEST(RunInLane, ACancelWithdrawsQueuedWorkAndCompletesItAtOnce) {
  sdk::OpRegistry registry;
  sdk::WorkLanes lanes;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  lanes.post("pc", [released] { released.wait(); });  // the lane is busy
  vc_test::FakeOp op;
  std::atomic<bool> ran{false};
  ASSERT_EQ(sdk::run_in_lane(registry, lanes, op.get(), "pc",
                             [&](const sdk::Pending&, sdk::CancelScope&) {
                               ran = true;
                               return sdk::OpResult::ok(json::object());
                             }),
            VC_OK);
  registry.cancel(op.get());
  EXPECT_TRUE(op.completed());  // before the lane is free
  EXPECT_EQ(op.status(), VC_E_CANCELLED);
  release.set_value();
  lanes.stop_and_join();
  EXPECT_FALSE(ran);
  EXPECT_EQ(op.completions(), 1);
}

TEST(RunInLane, ACancelStopsRunningWorkThroughItsScope) {
  sdk::OpRegistry registry;
  sdk::WorkLanes lanes;
  vc_test::FakeOp op;
  std::promise<void> started;
  ASSERT_EQ(sdk::run_in_lane(registry, lanes, op.get(), "pc",
                             [&](const sdk::Pending&, sdk::CancelScope& scope) {
                               std::promise<void> stopped;
                               scope.set_canceller([&] { stopped.set_value(); });
                               started.set_value();
                               stopped.get_future().wait();  // what a killed process looks like
                               scope.clear();
                               return sdk::OpResult::cancelled();
                             }),
            VC_OK);
  started.get_future().wait();
  registry.cancel(op.get());
  ASSERT_TRUE(op.wait());
  EXPECT_EQ(op.status(), VC_E_CANCELLED);
  lanes.stop_and_join();
  EXPECT_EQ(op.completions(), 1);
}

TEST(RunInLane, StoppedLanesCompleteTheOpAtOnceAsUnavailable) {
  sdk::OpRegistry registry;
  sdk::WorkLanes lanes;
  lanes.stop_and_join();
  vc_test::FakeOp op;
  EXPECT_EQ(sdk::run_in_lane(registry, lanes, op.get(), "pc",
                             [](const sdk::Pending&, sdk::CancelScope&) {
                               return sdk::OpResult::ok(json::object());
                             }),
            VC_OK);
  registry.cancel(op.get());  // completed already: a late cancel finds nothing
  EXPECT_EQ(op.completions(), 1);
  EXPECT_EQ(op.status(), VC_E_UNAVAILABLE);
  EXPECT_EQ(op.message(), "The backend is shutting down; the operation was not started.");
}

TEST(OpRegistry, EmitWaitingRetriesWhileTheHostPushesBack) {
  sdk::OpRegistry registry;
  vc_test::FakeOp op;
  op.backpressure_every = 2;
  auto pending = registry.accept(op.get());
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(registry.emit_waiting(pending, VC_STREAM_STDOUT, "ab", 2, 1ms), VC_OK);
  }
  registry.complete(pending, sdk::OpResult::ok(json::object()));
  EXPECT_EQ(op.out(), "abababababab");  // every chunk once, in order
}

TEST(Requests, RequiredBooleansNameEveryField) {
  using sdk::request_fields::required_booleans;
  auto [a, b] = required_booleans(json{{"x", true}, {"y", false}}, {"x", "y"});
  EXPECT_TRUE(a);
  EXPECT_FALSE(b);
  auto why = [](const json& doc, auto... keys) {
    try {
      required_booleans(doc, {keys...});
    } catch (const sdk::InvalidRequest& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(why(json{{"x", 1}}, "x"), "x must be a boolean");
  EXPECT_EQ(why(json{{"x", true}}, "x", "y"), "x and y must be booleans");
  EXPECT_EQ(why(json::object(), "x", "y", "z"), "x, y and z must be booleans");
}

// The plugin entry: the descriptor the macro makes, and create_backend's error sentences.
vc_status open_refusing(const vc_host_services*, std::string_view config, vc_backend**,
                        std::string& error) {
  if (config == "{\"throw\":true}") throw std::runtime_error("the factory broke");
  error = "entry-test: got " + std::string(config);
  return VC_E_INVALID_ARGUMENT;
}

constexpr vc_option_decl kRootOption =
    sdk::option(VC_OPTION_STRING, "root", "Where the computers live", {.env_var = "ENTRY_ROOT"});
constexpr const vc_option_decl* kEntryOptions[] = {&kRootOption, nullptr};
constexpr sdk::PluginInfo kEntryPlugin = {.id = "org.example.entry-test",
                                          .name = "entry-test",
                                          .version = "2.0.0",
                                          .vendor = "Example",
                                          .description = "A plugin entry under test",
                                          .capabilities = VC_CAP_PERSISTENT,
                                          .options = kEntryOptions,
                                          .min_host_abi_minor = 0};

TEST(PluginEntry, TheDescriptorCarriesTheInfoAndTheAbiOfTheHeaders) {
  const vc_plugin_descriptor& d = sdk::kPluginDescriptor<kEntryPlugin, open_refusing>;
  EXPECT_EQ(d.struct_size, sizeof(vc_plugin_descriptor));
  EXPECT_EQ(d.magic, VC_DESCRIPTOR_MAGIC);
  EXPECT_EQ(d.abi_major, VC_ABI_MAJOR);
  EXPECT_EQ(d.abi_minor, VC_ABI_MINOR);
  EXPECT_STREQ(d.id, "org.example.entry-test");
  EXPECT_STREQ(d.name, "entry-test");
  EXPECT_EQ(d.capabilities, VC_CAP_PERSISTENT);
  ASSERT_EQ(d.options, kEntryOptions);
  EXPECT_EQ(d.options[0]->struct_size, sizeof(vc_option_decl));
  EXPECT_STREQ(d.options[0]->env_var, "ENTRY_ROOT");
  EXPECT_EQ(d.options[0]->default_value, nullptr);

  vc_host_info other_major{};
  other_major.struct_size = sizeof other_major;
  other_major.abi_major = VC_ABI_MAJOR + 1;
  EXPECT_EQ(sdk::descriptor_for_host(&other_major, &d), nullptr);
  vc_host_info same{};
  same.struct_size = sizeof same;
  same.abi_major = VC_ABI_MAJOR;
  EXPECT_EQ(sdk::descriptor_for_host(&same, &d), &d);
}

TEST(PluginEntry, CreateBackendWritesTheFactorysSentenceOrTheException) {
  const vc_plugin_descriptor& d = sdk::kPluginDescriptor<kEntryPlugin, open_refusing>;
  vc_test::FakeHost host("/nonexistent");
  vc_backend* backend = nullptr;
  char errbuf[128];
  EXPECT_EQ(d.create_backend(host.services(), nullptr, 0, &backend, errbuf, sizeof errbuf),
            VC_E_INVALID_ARGUMENT);
  EXPECT_STREQ(errbuf, "entry-test: got {}");  // no config: the factory reads {}
  std::string thrower = "{\"throw\":true}";
  EXPECT_EQ(d.create_backend(host.services(), thrower.data(), thrower.size(), &backend, errbuf,
                             sizeof errbuf),
            VC_E_FAILED);
  EXPECT_STREQ(errbuf, "entry-test: the factory broke");
  char tiny[6];
  d.create_backend(host.services(), nullptr, 0, &backend, tiny, sizeof tiny);
  EXPECT_STREQ(tiny, "entry");  // truncated, still terminated
  EXPECT_EQ(backend, nullptr);
}

}  // namespace
