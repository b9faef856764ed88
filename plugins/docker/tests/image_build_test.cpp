// The bundled image's build through POST /build, against a scripted engine on a unix socket:
// a missing or out-of-date image is built from the context folder (sent as a tar stream, the
// version as a build argument), each step a progress event; a current one is left alone; the
// engine's error line becomes a message that says what it reported.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <unistd.h>

#include <vc_engine/engine_client.h>
#include <vc_engine/engine_loop.h>

#include "../../engine/tests/fake_engine.h"
#include "backend_context.h"
#include "desktop_image.h"
#include "docker_profile.h"
#include "image_ensure.h"

namespace vc::container {
namespace {

using engine::testing::FakeConnection;
using engine::testing::FakeEngine;

std::string respond(int status, const std::string& reason, const std::string& body,
                    const std::string& type = "application/json") {
  return "HTTP/1.1 " + std::to_string(status) + " " + reason + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

std::string chunked(const std::vector<std::string>& lines) {
  std::string body;
  for (const auto& line : lines) {
    char size[16];
    std::snprintf(size, sizeof size, "%zx", line.size() + 1);
    body += std::string(size) + "\r\n" + line + "\n\r\n";
  }
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
         "Connection: close\r\n\r\n" + body + "0\r\n\r\n";
}

std::string image_document(const std::string& version) {
  return nlohmann::json{{"Id", "sha256:1"},
                        {"Config", {{"Labels", {{kImageVersionLabel, version}}}}}}
      .dump();
}

// What the scripted engine saw and how it answers.
struct EngineScript {
  std::mutex mutex;
  std::vector<FakeConnection::Request> requests;
  bool present = false;           // the first inspect finds an image
  std::string present_version;    // ... with this label
  std::vector<std::string> build_lines;
  bool build_makes_image = true;  // the inspect after the build finds the current version

  void serve(FakeConnection& connection) {
    auto request = connection.read_request();
    bool built = false;
    {
      std::lock_guard lock(mutex);
      requests.push_back(request);
      for (const auto& seen : requests) built = built || seen.target.find("/build?") != std::string::npos;
    }
    if (request.method == "GET" && request.target.find("/images/") != std::string::npos) {
      if (built && build_makes_image) {
        return connection.send(respond(200, "OK", image_document(std::string(desktop_image_version()))));
      }
      if (!built && present) return connection.send(respond(200, "OK", image_document(present_version)));
      return connection.send(respond(404, "Not Found", R"({"message":"No such image"})"));
    }
    if (request.method == "POST" && request.target.find("/build?") != std::string::npos) {
      return connection.send(chunked(build_lines));
    }
    connection.send(respond(500, "Internal Server Error", R"({"message":"unexpected"})"));
  }
};

class ImageBuildTest : public ::testing::Test {
 protected:
  ImageBuildTest() {
    context_ = std::filesystem::temp_directory_path() /
               ("vc-build-context-" + std::to_string(::getpid()));
    std::filesystem::create_directories(context_);
    std::ofstream(context_ / "Dockerfile") << "FROM debian:bookworm-slim\n";
    std::filesystem::create_directories(context_ / "agents/desktop_agent");
    std::ofstream(context_ / "agents/desktop_agent/CMakeLists.txt") << "project(agent)\n";
  }
  ~ImageBuildTest() override { std::filesystem::remove_all(context_); }

  struct Outcome {
    Expected<nlohmann::json> result = OpFailure{};
    std::vector<nlohmann::json> progress;
  };

  Outcome ensure(EngineScript& script) {
    auto fake = FakeEngine::on_unix_socket([&script](FakeConnection& c) { script.serve(c); });
    engine::EngineLoop loop;
    engine::EngineClient client(loop, engine::EngineAddress::parse(fake->address()).value());
    BackendOptions options;
    options.desktop_image_context = context_.string();
    BackendContext ctx(loop, client, docker::docker_profile(), options, sdk::HostLog(nullptr));
    Outcome outcome;
    std::promise<void> finished;
    loop.post([&] {
      run_ensure_image(
          ctx, CancelScope::make(), std::string(kDesktopImageTag),
          [&outcome](const nlohmann::json& event) { outcome.progress.push_back(event); },
          [&](Expected<nlohmann::json> result) {
            outcome.result = std::move(result);
            finished.set_value();
          });
    });
    EXPECT_EQ(finished.get_future().wait_for(std::chrono::seconds(20)), std::future_status::ready);
    return outcome;
  }

  std::filesystem::path context_;
};

TEST_F(ImageBuildTest, AMissingImageIsBuiltFromTheContextWithItsVersion) {
  EngineScript script;
  script.build_lines = {R"({"stream":"Step 1/2 : FROM debian:bookworm-slim\n"})",
                        R"({"stream":" ---> a88edb7628fe\n"})",
                        R"({"stream":"Step 2/2 : RUN apt-get install\n"})",
                        R"({"aux":{"ID":"sha256:abc"}})",
                        R"({"stream":"Successfully built abc\n"})"};
  auto outcome = ensure(script);
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.error().message;
  EXPECT_EQ(outcome.result.value(),
            (nlohmann::json{{"image", kDesktopImageTag}, {"action", "built"}}));

  std::lock_guard lock(script.mutex);
  const FakeConnection::Request* build = nullptr;
  for (const auto& request : script.requests) {
    if (request.target.find("/build?") != std::string::npos) build = &request;
  }
  ASSERT_NE(build, nullptr);
  EXPECT_EQ(build->headers.find("content-type"), "application/x-tar");
  EXPECT_NE(build->target.find("t=mcp-virtual-computer-desktop%3Abookworm"), std::string::npos)
      << build->target;
  EXPECT_NE(build->target.find(std::string(desktop_image_version())), std::string::npos)
      << "the version goes in as a build argument: " << build->target;
  EXPECT_NE(build->body.find("Dockerfile"), std::string::npos) << "the context is the tar body";
  EXPECT_NE(build->body.find("FROM debian:bookworm-slim"), std::string::npos);

  // 0 (starting), step 1, step 2, then done: never decreasing, ending at the total.
  ASSERT_GE(outcome.progress.size(), 4u);
  double last = -1;
  for (const auto& event : outcome.progress) {
    EXPECT_GE(event["progress"].get<double>(), last) << event.dump();
    last = event["progress"].get<double>();
  }
  EXPECT_EQ(outcome.progress.back()["progress"], outcome.progress.back()["total"]);
  EXPECT_NE(outcome.progress[2]["message"].get<std::string>().find("step 2/2"), std::string::npos);
}

TEST_F(ImageBuildTest, ACurrentImageIsLeftAlone) {
  EngineScript script;
  script.present = true;
  script.present_version = std::string(desktop_image_version());
  auto outcome = ensure(script);
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.error().message;
  EXPECT_EQ(outcome.result.value()["action"], "present");
  std::lock_guard lock(script.mutex);
  for (const auto& request : script.requests) {
    EXPECT_EQ(request.target.find("/build"), std::string::npos) << request.target;
  }
}

TEST_F(ImageBuildTest, AnImageOfAnotherVersionIsRebuilt) {
  EngineScript script;
  script.present = true;
  script.present_version = "2";  // the original's label
  script.build_lines = {R"({"stream":"Step 1/1 : FROM debian:bookworm-slim\n"})"};
  auto outcome = ensure(script);
  ASSERT_TRUE(outcome.result.ok()) << outcome.result.error().message;
  EXPECT_EQ(outcome.result.value()["action"], "built");
}

TEST_F(ImageBuildTest, TheEnginesErrorLineIsTheMessage) {
  EngineScript script;
  script.build_lines = {R"({"stream":"Step 1/2 : RUN apt-get update\n"})",
                        R"({"stream":"E: Unable to locate package xvfb\n"})",
                        R"({"errorDetail":{"code":100},"error":"The command '/bin/sh -c apt-get update' returned a non-zero code: 100"})"};
  auto outcome = ensure(script);
  ASSERT_FALSE(outcome.result.ok());
  const std::string& message = outcome.result.error().message;
  EXPECT_NE(message.find("Failed to build the bundled Xfce desktop image"), std::string::npos)
      << message;
  EXPECT_NE(message.find("returned a non-zero code: 100"), std::string::npos) << message;
  EXPECT_NE(message.find("Unable to locate package xvfb"), std::string::npos)
      << "the last build output is shown: " << message;
}

TEST_F(ImageBuildTest, ABuildThatLeavesNoCurrentImageFails) {
  EngineScript script;
  script.build_lines = {R"({"stream":"Step 1/1 : FROM debian:bookworm-slim\n"})"};
  script.build_makes_image = false;
  auto outcome = ensure(script);
  ASSERT_FALSE(outcome.result.ok());
  EXPECT_NE(outcome.result.error().message.find("does not carry version"), std::string::npos)
      << outcome.result.error().message;
}

TEST_F(ImageBuildTest, AMissingContextSaysWhereItLookedAndWhichOptionOverridesIt) {
  std::filesystem::remove(context_ / "Dockerfile");
  EngineScript script;
  auto outcome = ensure(script);
  ASSERT_FALSE(outcome.result.ok());
  const std::string& message = outcome.result.error().message;
  EXPECT_NE(message.find(context_.string()), std::string::npos) << message;
  EXPECT_NE(message.find("--desktop-image-context"), std::string::npos) << message;
}

TEST_F(ImageBuildTest, AContextWithoutTheAgentSourcesIsRefusedBeforeTheBuildStarts) {
  std::filesystem::remove_all(context_ / "agents");
  EngineScript script;
  auto outcome = ensure(script);
  ASSERT_FALSE(outcome.result.ok());
  const std::string& message = outcome.result.error().message;
  EXPECT_NE(message.find("agents/desktop_agent"), std::string::npos) << message;
  EXPECT_NE(message.find("--desktop-image-context"), std::string::npos) << message;
}

}  // namespace
}  // namespace vc::container
