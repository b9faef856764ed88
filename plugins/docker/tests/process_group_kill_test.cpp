// Killing an exec's process group while the backend is being destroyed, against a scripted
// engine on a unix socket. The host's last cancels (a cancelled desktop action, a cancelled
// command) ask for kills just before destroy(), so a kill's exec inspect can be answered while
// destroy() runs. The kill reads the client only when it is called, and once shutting_down is
// set it starts no engine call: so its answer is safe even after the client was released, the
// harshest order (shutting_down set on the loop, the client released, the answer delivered,
// the loop stopped last), which is the one these tests take.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <vc_engine/engine_client.h>
#include <vc_engine/engine_loop.h>

#include "../../engine/tests/fake_engine.h"
#include "backend_context.h"
#include "docker_profile.h"
#include "process_group_kill.h"

namespace vc::container {
namespace {

using engine::testing::FakeConnection;
using engine::testing::FakeEngine;
using namespace std::chrono_literals;

// No cgroup on this machine names it, so the host path never signals anything here.
constexpr const char* kUnknownContainerId =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

// Holds the answer to the exec inspect until the test releases it; records every request.
struct HeldInspect {
  std::mutex mutex;
  std::vector<std::string> targets;
  std::promise<void> asked;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();

  void serve(FakeConnection& connection) {
    auto request = connection.read_request();
    if (request.method.empty()) return;
    {
      std::lock_guard lock(mutex);
      targets.push_back(request.method + " " + request.target);
    }
    if (request.target.find("/exec/exec-1/json") == std::string::npos) {
      return connection.send(engine::testing::http_response(
          500, "Internal Server Error", R"({"message":"unexpected"})"));
    }
    asked.set_value();
    released.wait();
    // Running, with a PID that exists here (this process), in a container nobody knows.
    const nlohmann::json body = {{"Running", true},
                                 {"Pid", static_cast<std::int64_t>(::getpid())},
                                 {"ContainerID", kUnknownContainerId}};
    connection.send(engine::testing::http_response(200, "OK", body.dump()));
  }

  std::vector<std::string> seen() {
    std::lock_guard lock(mutex);
    return targets;
  }
};

struct Backend {
  explicit Backend(const std::string& address)
      : loop(std::make_unique<engine::EngineLoop>()),
        client(std::make_unique<engine::EngineClient>(
            *loop, engine::EngineAddress::parse(address).value())),
        ctx(std::make_unique<BackendContext>(*loop, *client, docker::docker_profile(),
                                             BackendOptions{}, sdk::HostLog(nullptr))) {}

  // As destroy() begins: on the loop, no flow may start another engine call from now on.
  void begin_shutdown() {
    std::promise<void> quiet;
    ASSERT_TRUE(loop->post([&] {
      ctx->shutting_down = true;
      quiet.set_value();
    }));
    quiet.get_future().wait();
  }

  std::unique_ptr<engine::EngineLoop> loop;
  std::unique_ptr<engine::EngineClient> client;
  std::unique_ptr<BackendContext> ctx;
};

TEST(ProcessGroupKillTest, AKillAnsweredAfterTheClientWasReleasedReadsNothingOfIt) {
  HeldInspect engine;
  auto fake = FakeEngine::on_unix_socket([&engine](FakeConnection& c) { engine.serve(c); });
  Backend backend(fake->address());

  std::promise<KillPath> killed;
  backend.loop->post([&] {
    kill_exec_process_group(*backend.ctx, "exec-1", "vc-computer",
                            [&killed](KillPath path) { killed.set_value(path); });
  });
  ASSERT_EQ(engine.asked.get_future().wait_for(10s), std::future_status::ready);

  // Destroying begins while the inspect is in flight; the client goes before the answer comes.
  backend.begin_shutdown();
  backend.client.reset();
  engine.release.set_value();

  auto path = killed.get_future();
  ASSERT_EQ(path.wait_for(10s), std::future_status::ready);
  // Nothing to signal from here (no cgroup names the container), and the in-container kill,
  // which needs an engine call, is not started once destroy() has begun.
  EXPECT_EQ(path.get(), KillPath::kImpossible);
  backend.loop.reset();
  EXPECT_EQ(engine.seen(), std::vector<std::string>{"GET /v1.41/exec/exec-1/json"});
}

TEST(ProcessGroupKillTest, AKillAskedForAfterDestroyBeganStartsNothing) {
  HeldInspect engine;
  engine.release.set_value();
  auto fake = FakeEngine::on_unix_socket([&engine](FakeConnection& c) { engine.serve(c); });
  Backend backend(fake->address());
  backend.begin_shutdown();
  backend.client.reset();

  std::promise<KillPath> killed;
  backend.loop->post([&] {
    kill_exec_process_group(*backend.ctx, "exec-1", "vc-computer",
                            [&killed](KillPath path) { killed.set_value(path); });
  });
  auto path = killed.get_future();
  ASSERT_EQ(path.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(path.get(), KillPath::kImpossible);
  backend.loop.reset();
  EXPECT_TRUE(engine.seen().empty());
}

}  // namespace
}  // namespace vc::container
