// engine_test.h — the fixture of the integration suites: the real host binary, the real
// backend plugin and the real engine, parameterised over the engines (container_engine.h).
//
// Each test gets a computer id of its own ("it-<pid>-<n>"), a scratch state directory, and a
// TearDown that removes every container the test made or made the product make, even when the
// test failed. A test is skipped, with the reason, when the engine's plugin is not built, the
// engine's socket does not answer, or the test image is missing.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "backend_driver.h"
#include "container_engine.h"
#include "json.h"
#include "mcp_client.h"
#include "temp_directory.h"

namespace vc::integration {

using test::Json;
using namespace std::chrono_literals;

// The images scripts/engines/*-up.sh make.
inline constexpr const char* kDebianImage = "debian:bookworm-slim";
inline constexpr const char* kBusyboxImage = "vc-test-busybox:latest";
// The bundled desktop image, as the plugins build it (`computers prepare`).
inline constexpr const char* kDesktopImage = "mcp-virtual-computer-desktop:bookworm";
// Label on every container a test creates itself (listeners, foreign containers).
inline constexpr const char* kTestLabel = "vc-test=1";

struct HostOptions {
  std::string image = kDebianImage;
  std::string shell;                     // empty: the host's default (/bin/bash)
  std::vector<std::string> extra_args;   // appended last, so they win over the defaults
  test::Environment environment;         // on top of the scrubbed environment and COMPUTER_ID
  bool default_address = true;           // pass the engine's address option
  std::optional<std::string> computer_id;  // default: the test's own
};

class EngineTest : public ::testing::TestWithParam<const test::ContainerEngine*> {
 protected:
  void SetUp() override;
  void TearDown() override;

  const test::ContainerEngine& engine() const { return *GetParam(); }
  const std::string& computer_id() const { return computer_id_; }
  std::string container_name() const { return container_name_for(computer_id_); }
  static std::string container_name_for(const std::string& id) { return "kilntainer-" + id; }

  // A further computer id for this test, cleaned up in TearDown like the first.
  std::string another_computer_id();
  // Remember a container to remove in TearDown (one the test created itself).
  void remove_at_teardown(const std::string& container_name);

  // Starts the host over stdio on this engine and initializes the MCP session.
  std::unique_ptr<test::McpClient> start_host(const HostOptions& options = {});
  // The host's command line before any subcommand, and its environment, as start_host() uses.
  std::vector<std::string> host_args(const HostOptions& options = {}) const;
  test::Environment host_environment_for(const HostOptions& options = {}) const;
  // terminal_execute; returns the CallToolResult (the caller looks at isError).
  Json call_terminal(test::McpClient& host, const Json& arguments,
                     std::chrono::milliseconds timeout = 180s);
  // terminal_execute that must succeed (isError false); returns its payload.
  Json execute(test::McpClient& host, const Json& arguments,
               std::chrono::milliseconds timeout = 180s);
  // Closes the host gracefully and expects a clean exit (sanitizers report through the code).
  void close_host(std::unique_ptr<test::McpClient>& host);

  // How commands reach the computer in this run: VC_TEST_EXEC_AGENT (auto, on, off) passed as
  // --exec-agent; nullopt (the plugin's default, auto) when unset. The test command runs the
  // exec and file suites once more with it set to off (tests/integration/CMakeLists.txt).
  static std::optional<std::string> exec_agent_mode();

  // The backend plugin, driven directly through the C ABI.
  std::unique_ptr<test::BackendDriver> open_backend(const Json& extra_options = Json::object());
  // The create request the host would send for `id` with the fixture's defaults.
  Json create_request(const std::string& id, bool network_access = true) const;
  Json exec_request(const std::string& id, const std::string& command) const;

  // Starts a busybox container on the default bridge network that answers every TCP
  // connection on `port` with `banner` and closes it. Returns its address.
  std::string start_listener(const std::string& banner, int port = 8080);

  // The names of the processes in the computer; waits (bounded) until `name` is gone and
  // returns what is left either way.
  std::vector<std::string> wait_until_process_gone(const std::string& name,
                                                   std::chrono::milliseconds timeout = 15s);

 private:
  std::string computer_id_;
  std::vector<std::string> computer_ids_;
  std::vector<std::string> extra_containers_;
  std::unique_ptr<test::TempDirectory> state_dir_;
};

// The checkpoint images and checkpoint base tags of a computer ("<repository>:<tag>"), as the
// engine's CLI lists them; and their removal (TearDown does it for every test computer).
std::vector<std::string> checkpoint_images_of(const test::ContainerEngine& engine,
                                              const std::string& computer_id);
void remove_checkpoint_images(const test::ContainerEngine& engine, const std::string& computer_id);

// "docker", "podman": the parameter's part of a test's name.
std::string engine_test_name(const ::testing::TestParamInfo<const test::ContainerEngine*>& info);

// Instantiates a fixture derived from EngineTest once per engine, named after the engine.
#define VC_INSTANTIATE_FOR_ENGINES(Fixture)                                        \
  INSTANTIATE_TEST_SUITE_P(Engines, Fixture,                                       \
                           ::testing::ValuesIn(::vc::test::all_engines()),          \
                           ::vc::integration::engine_test_name)

}  // namespace vc::integration
