// docker_integration_test.cpp — the client against the real Docker engine.
//
// Uses DOCKER_HOST when set, else unix:///var/run/docker.sock; skips (with the reason) when no
// engine answers /_ping. The container part needs a local image (vc-test-busybox:latest,
// busybox:latest or debian:bookworm-slim; nothing is pulled) and is skipped without one. Every
// container it creates carries the label vc-test=engine-client and is force-deleted at the end
// of the test, also when the test fails.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <random>
#include <string_view>
#include <thread>

#include "vc_engine/engine_client.h"

namespace vc::engine {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

constexpr const char* kTestLabel = "vc-test";
constexpr const char* kTestLabelValue = "engine-client";

// Runs an asynchronous client call and waits for its completion (tests only: a plugin never
// blocks like this on its host's thread).
template <class T, class Start>
Result<T> wait_for(Start start, std::chrono::seconds limit = 60s) {
  auto promise = std::make_shared<std::promise<Result<T>>>();
  auto future = promise->get_future();
  start([promise](Result<T> result) { promise->set_value(std::move(result)); });
  if (future.wait_for(limit) != std::future_status::ready) {
    EngineError error;
    error.kind = EngineErrorKind::kTimeout;
    error.message = "test gave up waiting";
    return error;
  }
  return future.get();
}

std::string engine_address_text() {
  const char* docker_host = std::getenv("DOCKER_HOST");
  return docker_host != nullptr && *docker_host != '\0' ? docker_host
                                                        : "unix:///var/run/docker.sock";
}

class DockerEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    auto address = EngineAddress::parse(engine_address_text());
    ASSERT_TRUE(address) << address.error().message;
    client_ = std::make_unique<EngineClient>(loop_, address.value());
    RequestOptions quick;
    quick.connect_timeout = 3s;
    quick.timeout = 5s;
    auto info = wait_for<EngineInfo>([&](auto done) { client_->negotiate(done, quick); });
    if (!info) {
      // The README's test command promises a Docker engine: without one this is a failure.
      const char* required = std::getenv("VC_REQUIRE_ENGINES");
      if (required != nullptr &&
          std::string_view(required).find("docker") != std::string_view::npos) {
        FAIL() << "VC_REQUIRE_ENGINES names docker, but no Docker engine answers at "
               << client_->address().display() << ": " << info.error().message;
      }
      GTEST_SKIP() << "no Docker engine answers at " << client_->address().display() << ": "
                   << info.error().message;
    }
    if (info.value().is_podman)
      GTEST_SKIP() << "the engine at " << client_->address().display() << " is Podman";
    info_ = info.value();
  }

  void TearDown() override {
    if (!container_id_.empty()) {
      auto removed = delete_json("/containers/" + container_id_ + "?force=1&v=1");
      EXPECT_TRUE(removed) << "cleanup of " << container_id_
                           << " failed: " << removed.error().message;
    }
  }

  Result<JsonResponse> get_json(const std::string& path) {
    return wait_for<JsonResponse>([&](auto done) { client_->get_json(path, done); });
  }
  Result<JsonResponse> post_json(const std::string& path, std::optional<json> body = std::nullopt) {
    return wait_for<JsonResponse>([&](auto done) { client_->post_json(path, body, done); });
  }
  Result<JsonResponse> delete_json(const std::string& path) {
    return wait_for<JsonResponse>([&](auto done) { client_->delete_json(path, done); });
  }

  // The first local image of the candidates, or "".
  std::string local_test_image() {
    auto images = get_json("/images/json");
    if (!images || !images.value().body.is_array()) return {};
    for (const char* candidate :
         {"vc-test-busybox:latest", "busybox:latest", "debian:bookworm-slim"}) {
      for (const json& image : images.value().body) {
        const json tags = image.value("RepoTags", json::array());
        if (!tags.is_array()) continue;
        for (const json& tag : tags) {
          if (tag.is_string() && tag.get<std::string>() == candidate) return candidate;
        }
      }
    }
    return {};
  }

  EngineLoop loop_;
  std::unique_ptr<EngineClient> client_;
  EngineInfo info_;
  std::string container_id_;
};

TEST_F(DockerEngine, NegotiatesAndLists) {
  EXPECT_EQ(info_.api_version, "1.41");
  EXPECT_FALSE(info_.version.empty());
  EXPECT_EQ(client_->api_prefix(), "/v" + info_.api_version);

  auto containers = get_json(query_target("/containers/json", {{"all", "1"}}));
  ASSERT_TRUE(containers) << containers.error().message;
  EXPECT_TRUE(containers.value().body.is_array());

  auto missing = get_json("/containers/vc-engine-test-does-not-exist/json");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().http_status, 404);
  EXPECT_NE(missing.error().engine_message.find("No such container"), std::string::npos)
      << missing.error().engine_message;
}

TEST_F(DockerEngine, ContainerExecHijackWaitAndEvents) {
  const std::string image = local_test_image();
  if (image.empty()) {
    GTEST_SKIP()
        << "no local test image (vc-test-busybox:latest, busybox:latest or debian:bookworm-slim)";
  }
  const auto started_at = std::chrono::system_clock::now();
  std::mt19937 random(static_cast<unsigned>(::getpid()) ^
                      static_cast<unsigned>(started_at.time_since_epoch().count()));
  const std::string name =
      "vc-engine-test-" + std::to_string(::getpid()) + "-" + std::to_string(random() % 100000);

  json create = {{"Image", image},
                 {"Cmd", {"sleep", "600"}},
                 {"Labels", {{kTestLabel, kTestLabelValue}}},
                 {"Tty", false},
                 {"StopTimeout", 1},
                 {"HostConfig", {{"NetworkMode", "none"}, {"AutoRemove", false}}}};
  auto created = post_json(query_target("/containers/create", {{"name", name}}), create);
  ASSERT_TRUE(created) << created.error().message;
  ASSERT_EQ(created.value().status, 201);
  container_id_ = created.value().body.at("Id").get<std::string>();

  auto started = post_json("/containers/" + container_id_ + "/start");
  ASSERT_TRUE(started) << started.error().message;
  EXPECT_EQ(started.value().status, 204);
  auto again = post_json("/containers/" + container_id_ + "/start");
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again.value().status, 304);  // already running

  // Listing by label finds it.
  auto listed = get_json(query_target(
      "/containers/json",
      {{"all", "1"},
       {"filters", json{{"label", {std::string(kTestLabel) + "=" + kTestLabelValue}}}.dump()}}));
  ASSERT_TRUE(listed) << listed.error().message;
  bool found = false;
  for (const json& entry : listed.value().body)
    found = found || entry.value("Id", "") == container_id_;
  EXPECT_TRUE(found);

  // Exec with stdin: cat echoes it, stderr carries a line after stdin's EOF, exit code 7.
  auto exec = post_json("/containers/" + container_id_ + "/exec",
                        json{{"AttachStdin", true},
                             {"AttachStdout", true},
                             {"AttachStderr", true},
                             {"Tty", false},
                             {"Cmd", {"sh", "-c", "cat; echo done-on-stderr >&2; exit 7"}}});
  ASSERT_TRUE(exec) << exec.error().message;
  const std::string exec_id = exec.value().body.at("Id").get<std::string>();

  struct Transcript {
    std::string out;
    std::string err;
    int status = 0;
  };
  auto transcript = std::make_shared<Transcript>();
  auto ended = std::make_shared<std::promise<Result<void>>>();
  ExecStreamCallbacks callbacks;
  callbacks.on_started = [transcript](int status) { transcript->status = status; };
  callbacks.on_output = [transcript](StreamKind stream, std::string_view bytes) {
    (stream == StreamKind::kStdout ? transcript->out : transcript->err).append(bytes);
  };
  callbacks.on_end = [ended](Result<void> end) { ended->set_value(std::move(end)); };
  const std::string input = "hello stdin line1\n\tline2 é no newline";
  auto stream = client_->start_exec(exec_id, ExecStartOptions{}, std::move(callbacks));
  stream->write_stdin(input);
  stream->close_stdin();
  auto end_future = ended->get_future();
  ASSERT_EQ(end_future.wait_for(30s), std::future_status::ready);
  Result<void> end = end_future.get();
  ASSERT_TRUE(end) << end.error().message;
  EXPECT_EQ(transcript->status, 101);
  EXPECT_EQ(transcript->out, input);
  EXPECT_EQ(transcript->err, "done-on-stderr\n");

  json inspected;
  for (int attempt = 0; attempt < 20; ++attempt) {
    auto state = get_json("/exec/" + exec_id + "/json");
    ASSERT_TRUE(state) << state.error().message;
    inspected = state.value().body;
    if (!inspected.value("Running", true)) break;
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_FALSE(inspected.value("Running", true));
  EXPECT_EQ(inspected.value("ExitCode", -1), 7);

  // Wait for the container's exit (long poll), then kill it: the wait reports 137.
  auto registered = std::make_shared<std::promise<int>>();
  auto waited = std::make_shared<std::promise<Result<JsonResponse>>>();
  client_->long_poll_json(
      "POST", "/containers/" + container_id_ + "/wait?condition=next-exit", std::nullopt,
      [registered](int status) { registered->set_value(status); },
      [waited](Result<JsonResponse> result) { waited->set_value(std::move(result)); });
  auto registered_future = registered->get_future();
  ASSERT_EQ(registered_future.wait_for(10s), std::future_status::ready);
  EXPECT_EQ(registered_future.get(), 200);
  auto killed = post_json("/containers/" + container_id_ + "/kill?signal=SIGKILL");
  ASSERT_TRUE(killed) << killed.error().message;
  auto waited_future = waited->get_future();
  ASSERT_EQ(waited_future.wait_for(30s), std::future_status::ready);
  Result<JsonResponse> wait_result = waited_future.get();
  ASSERT_TRUE(wait_result) << wait_result.error().message;
  EXPECT_EQ(wait_result.value().body.value("StatusCode", -1), 137);

  // The events of this container, as an NDJSON stream bounded by `until`.
  const auto seconds = [](std::chrono::system_clock::time_point t) {
    return std::to_string(
        std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  };
  HttpRequest events;
  events.target =
      query_target("/events", {{"since", seconds(started_at - 1s)},
                               {"until", seconds(std::chrono::system_clock::now() + 1s)},
                               {"filters", json{{"container", {container_id_}}}.dump()}});
  auto lines = std::make_shared<std::vector<std::string>>();
  auto streamed = wait_for<int>([&](auto done) {
    client_->stream_lines(
        events, [lines](std::string_view line) { lines->emplace_back(line); }, done);
  });
  ASSERT_TRUE(streamed) << streamed.error().message;
  std::vector<std::string> actions;
  for (const std::string& line : *lines) actions.push_back(json::parse(line).value("Action", ""));
  EXPECT_NE(std::find(actions.begin(), actions.end(), "create"), actions.end());
  EXPECT_NE(std::find(actions.begin(), actions.end(), "start"), actions.end());
  EXPECT_NE(std::find(actions.begin(), actions.end(), "die"), actions.end());

  // Delete, then the container is gone.
  auto deleted = delete_json("/containers/" + container_id_ + "?force=1&v=1");
  ASSERT_TRUE(deleted) << deleted.error().message;
  EXPECT_EQ(deleted.value().status, 204);
  auto gone = get_json("/containers/" + container_id_ + "/json");
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().http_status, 404);
  container_id_.clear();
}

}  // namespace
}  // namespace vc::engine
