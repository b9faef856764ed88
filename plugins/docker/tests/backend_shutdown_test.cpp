// The host's shutdown with a desktop action in flight, against a scripted engine on a unix
// socket, through the backend's own operations: the host cancels what is pending (the action
// the desktop agent is typing), waits for it to complete, then destroys the instance. The
// cancel ends the agent's process group: destroy() lets that kill finish (for a bounded time)
// before it tears anything down, so the typing stops with the server, and nothing the kill does
// reaches a released engine client (AddressSanitizer fails the test if it does).
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
// No cgroup on this machine names it, so the kill's host path never signals anything here and
// the kill goes the in-container way: an exec of `kill` in the computer, which this engine
// only records.
constexpr const char* kAgentContainerId =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// One round's engine: the agent's exec, its greeting, the request it is given, the kill's
// inspect of the agent's exec (answered `delay` after the test says destroy() begins), and the
// kill's own exec.
struct Round {
  std::chrono::microseconds delay{0};
  std::promise<void> typing;      // the agent has the request
  std::promise<void> inspecting;  // the kill asks about the agent's exec
  std::promise<void> destroying;
  std::shared_future<void> destroy_begun = destroying.get_future().share();
  std::mutex mutex;
  int execs_created = 0;
  bool kill_started = false;  // the exec of `kill -KILL -<group>` was started

  void serve(FakeConnection& connection) {
    auto request = connection.read_request();
    if (request.method.empty()) return;
    if (request.method == "POST" && request.target.find("/containers/") != std::string::npos &&
        request.target.ends_with("/exec")) {
      std::lock_guard lock(mutex);
      const bool agent = ++execs_created == 1;
      const bool killer = request.body.find("kill -KILL -") != std::string::npos;
      return connection.send(http_response(
          agent || killer ? 201 : 500, agent || killer ? "Created" : "Internal Server Error",
          agent ? R"({"Id":"agent-1"})" : killer ? R"({"Id":"kill-1"})" : R"({"message":"?"})"));
    }
    if (request.method == "POST" && request.target.ends_with("/exec/agent-1/start")) {
      connection.send(std::string(kExecUpgraded) + frame(1, "{\"ready\":true}\n"));
      connection.read_until("\n");  // the request line
      typing.set_value();
      connection.read_until_eof();  // it types until the plugin ends the stream
      return;
    }
    if (request.method == "GET" && request.target.ends_with("/exec/agent-1/json")) {
      inspecting.set_value();
      if (destroy_begun.wait_for(10s) != std::future_status::ready) return;
      if (delay < 1ms) {  // to the microsecond: sleep_for is coarser
        const auto until = std::chrono::steady_clock::now() + delay;
        while (std::chrono::steady_clock::now() < until) {
        }
      } else {
        std::this_thread::sleep_for(delay);
      }
      const nlohmann::json body = {{"Running", true},
                                   {"Pid", static_cast<std::int64_t>(::getpid())},
                                   {"ContainerID", kAgentContainerId}};
      return connection.send(http_response(200, "OK", body.dump()));
    }
    if (request.method == "POST" && request.target.ends_with("/exec/kill-1/start")) {
      {
        std::lock_guard lock(mutex);
        kill_started = true;
      }
      return connection.send(kExecUpgraded);  // and the stream ends: kill says nothing
    }
    if (request.method == "GET" && request.target.ends_with("/exec/kill-1/json")) {
      return connection.send(http_response(200, "OK", R"({"Running":false,"ExitCode":0})"));
    }
    connection.send(http_response(500, "Internal Server Error", R"({"message":"unexpected"})"));
  }

  bool killed() {
    std::lock_guard lock(mutex);
    return kill_started;
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

// How one shutdown went.
struct Shutdown {
  bool killed = false;  // the kill's exec had been started when destroy() returned
  std::chrono::milliseconds destroy_took{0};
};

// Opens a backend on a fresh fake engine, has its desktop agent type, and shuts it down as the
// host does: cancel what is pending, wait for it, destroy the instance.
Shutdown shut_down_while_typing(std::chrono::microseconds inspect_delay) {
  static const vc_host_services host = quiet_host();
  Shutdown outcome;
  Round round;
  round.delay = inspect_delay;
  auto fake = FakeEngine::on_unix_socket([&round](FakeConnection& c) { round.serve(c); });

  BackendIdentity identity;
  identity.profile = &docker::docker_profile();
  identity.address_option = "docker-host";
  identity.default_address = fake->address();
  vc_backend* handle = nullptr;
  std::string error;
  EXPECT_EQ(ContainerBackend::open(&host, R"({"options":{}})", std::move(identity), &handle, error),
            VC_OK)
      << error;
  if (handle == nullptr) return outcome;
  auto* backend = static_cast<ContainerBackend*>(handle->plugin_ctx);

  HostOp typing;
  const nlohmann::json action = {{"computer_id", "shutdown-test"},
                                 {"action", "type"},
                                 {"text", std::string(5000, 'x')}};
  EXPECT_EQ(backend->desktop_action(sdk::DesktopActionRequest::parse(action), &typing.op), VC_OK);
  EXPECT_EQ(round.typing.get_future().wait_for(10s), std::future_status::ready);

  backend->cancel(&typing.op);
  EXPECT_TRUE(typing.wait(10s));
  EXPECT_EQ(typing.status, VC_E_CANCELLED);
  EXPECT_EQ(round.inspecting.get_future().wait_for(10s), std::future_status::ready)
      << "the cancel ends the agent's process group";
  round.destroying.set_value();
  const auto destroy_began = std::chrono::steady_clock::now();
  backend->destroy();
  outcome.destroy_took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - destroy_began);
  outcome.killed = round.killed();
  return outcome;
}

TEST(BackendShutdownTest, ADesktopActionCancelledByTheShutdownHasItsAgentKilledBeforeTheBackendGoes) {
  // The kill's inspect answered at every moment of destroy()'s first microseconds: the kill is
  // done before anything is torn down, and nothing it does reaches a released client.
  for (int round = 0; round < 120; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto shutdown = shut_down_while_typing(std::chrono::microseconds(round * 5));
    EXPECT_TRUE(shutdown.killed);
  }
  // An engine slow to answer: destroy() still waits for the kill.
  const auto slow = shut_down_while_typing(300ms);
  EXPECT_TRUE(slow.killed);
}

TEST(BackendShutdownTest, DestroyWaitsForAKillOnlyABoundedTime) {
  const auto shutdown = shut_down_while_typing(2500ms);
  EXPECT_FALSE(shutdown.killed);
  EXPECT_GE(shutdown.destroy_took, 900ms);
  EXPECT_LT(shutdown.destroy_took, 2000ms);
}

}  // namespace
}  // namespace vc::container
