// The host's shutdown with a desktop action in flight, against a scripted engine on a unix
// socket, through the backend's own operations: the host cancels what is pending (the action
// the desktop agent is typing), waits for it to complete, then destroys the instance. The
// cancel ends the agent's process group, whose exec inspect is answered while destroy() runs.
// Each round answers it a little later, so that over the rounds the answer lands at every
// moment of destroy(): before the loop stops, while it stops, after. Under AddressSanitizer a
// callback that reaches a released client fails the test.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>

#include <vc-backend-1/vc_sdk.h>

#include "../../engine/tests/fake_engine.h"
#include "container_backend.h"
#include "docker_profile.h"

namespace vc::container {
namespace {

using engine::testing::FakeConnection;
using engine::testing::FakeEngine;
using engine::testing::frame;
using engine::testing::http_response;
using namespace std::chrono_literals;

constexpr const char* kExecUpgraded =
    "HTTP/1.1 101 UPGRADED\r\nContent-Type: application/vnd.docker.raw-stream\r\n"
    "Connection: Upgrade\r\nUpgrade: tcp\r\nApi-Version: 1.41\r\n\r\n";
// No cgroup on this machine names it, so the kill's host path never signals anything here.
constexpr const char* kAgentContainerId =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// One round's engine: the agent's exec, its greeting, the request it is given, and the kill's
// exec inspect, answered `delay` after the test says destroy() begins.
struct Round {
  std::chrono::microseconds delay{0};
  std::promise<void> typing;     // the agent has the request
  std::promise<void> inspecting;  // the kill asks about the agent's exec
  std::promise<void> destroying;
  std::shared_future<void> destroy_begun = destroying.get_future().share();

  void serve(FakeConnection& connection) {
    auto request = connection.read_request();
    if (request.method.empty()) return;
    if (request.method == "POST" && request.target.find("/containers/") != std::string::npos &&
        request.target.ends_with("/exec")) {
      return connection.send(http_response(201, "Created", R"({"Id":"exec-1"})"));
    }
    if (request.method == "POST" && request.target.ends_with("/exec/exec-1/start")) {
      connection.send(std::string(kExecUpgraded) + frame(1, "{\"ready\":true}\n"));
      connection.read_until("\n");  // the request line
      typing.set_value();
      connection.read_until_eof();  // it types until the plugin ends the stream
      return;
    }
    if (request.method == "GET" && request.target.ends_with("/exec/exec-1/json")) {
      inspecting.set_value();
      if (destroy_begun.wait_for(10s) != std::future_status::ready) return;
      const auto until = std::chrono::steady_clock::now() + delay;
      while (std::chrono::steady_clock::now() < until) {
      }
      const nlohmann::json body = {{"Running", true},
                                   {"Pid", static_cast<std::int64_t>(::getpid())},
                                   {"ContainerID", kAgentContainerId}};
      return connection.send(http_response(200, "OK", body.dump()));
    }
    connection.send(http_response(500, "Internal Server Error", R"({"message":"unexpected"})"));
  }
};

// The host's side of one op: its completion.
struct HostOp {
  HostOp() {
    op.struct_size = sizeof op;
    op.id = 1;
    op.host_ctx = this;
    op.complete = [](const vc_op* self, vc_status outcome, const char*, size_t, const char*,
                     size_t) {
      auto* me = static_cast<HostOp*>(self->host_ctx);
      std::lock_guard lock(me->mutex);
      me->status = outcome;
      me->completed = true;
      me->done.notify_all();
    };
    op.emit = [](const vc_op*, vc_stream, const uint8_t*, size_t) -> vc_status { return VC_OK; };
    op.is_cancelled = [](const vc_op*) -> int32_t { return 0; };
  }
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex);
    return done.wait_for(lock, timeout, [this] { return completed; });
  }

  vc_op op{};
  std::mutex mutex;
  std::condition_variable done;
  bool completed = false;
  vc_status status = VC_OK;
};

vc_host_services quiet_host() {
  vc_host_services host{};
  host.struct_size = sizeof host;
  host.log = [](const vc_host_services*, vc_log_level, const char*, size_t) {};
  host.get_extension = [](const vc_host_services*, const char*) -> const void* { return nullptr; };
  return host;
}

TEST(BackendShutdownTest, ADesktopActionCancelledByTheShutdownEndsItsAgentWithoutOutlivingTheClient) {
  const vc_host_services host = quiet_host();
  constexpr int kRounds = 120;
  for (int round_number = 0; round_number < kRounds; ++round_number) {
    SCOPED_TRACE("round " + std::to_string(round_number));
    Round round;
    round.delay = std::chrono::microseconds(round_number * 5);
    auto fake = FakeEngine::on_unix_socket([&round](FakeConnection& c) { round.serve(c); });

    BackendIdentity identity;
    identity.profile = &docker::docker_profile();
    identity.address_option = "docker-host";
    identity.default_address = fake->address();
    vc_backend* handle = nullptr;
    std::string error;
    ASSERT_EQ(ContainerBackend::open(&host, R"({"options":{}})", std::move(identity), &handle,
                                     error),
              VC_OK)
        << error;
    auto* backend = static_cast<ContainerBackend*>(handle->plugin_ctx);

    HostOp typing;
    nlohmann::json action = {{"computer_id", "shutdown-test"},
                             {"action", "type"},
                             {"text", std::string(5000, 'x')}};
    ASSERT_EQ(backend->desktop_action(sdk::DesktopActionRequest::parse(action), &typing.op),
              VC_OK);
    ASSERT_EQ(round.typing.get_future().wait_for(10s), std::future_status::ready);

    // The host's shutdown: cancel what is pending, wait for it, destroy the instance.
    backend->cancel(&typing.op);
    ASSERT_TRUE(typing.wait(10s));
    EXPECT_EQ(typing.status, VC_E_CANCELLED);
    ASSERT_EQ(round.inspecting.get_future().wait_for(10s), std::future_status::ready)
        << "the cancel ends the agent's process group";
    round.destroying.set_value();
    backend->destroy();
  }
}

}  // namespace
}  // namespace vc::container
