// podman_service_test.cpp — the Podman plugin's own service: with no socket to use (here
// forced with --podman-service always), the plugin starts a private `podman system service`,
// runs the computer through it, and stops it when the host exits. The computer outlives it.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "child_process.h"
#include "engine_test.h"
#include "host_environment.h"

namespace vc::integration {
namespace {

// Processes whose command line contains `needle`.
std::vector<pid_t> processes_with(const std::string& needle) {
  std::vector<pid_t> found;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream file(entry.path() / "cmdline");
    std::stringstream text;
    text << file.rdbuf();
    std::string cmdline = text.str();
    for (auto& c : cmdline) {
      if (c == '\0') c = ' ';
    }
    if (cmdline.find(needle) != std::string::npos) found.push_back(std::stoi(name));
  }
  return found;
}

class PodmanServiceTest : public EngineTest {};

TEST_P(PodmanServiceTest, PrivateServiceRunsTheComputerAndStopsWithTheHost) {
  HostOptions options;
  options.default_address = false;
  options.extra_args = {"--podman-service", "always"};
  auto host = start_host(options);
  const std::string socket =
      "/run/mcp-virtual-computer/podman-" + std::to_string(host->process().pid()) + ".sock";

  const Json payload = execute(*host, {{"command", "echo private-$((40+2))"}});
  EXPECT_EQ(payload.value("stdout", ""), "private-42\n") << payload.dump();
  EXPECT_TRUE(std::filesystem::exists(socket)) << socket;
  EXPECT_EQ(processes_with("system service --time=0 unix://" + socket).size(), 1u);
  // The computer is an ordinary Podman container, visible to the system service too.
  EXPECT_TRUE(engine().container_running(container_name()));

  close_host(host);
  EXPECT_FALSE(std::filesystem::exists(socket)) << socket;
  EXPECT_TRUE(processes_with("system service --time=0 unix://" + socket).empty());
  EXPECT_TRUE(engine().inspect_container(container_name()).has_value());
}

TEST_P(PodmanServiceTest, PodmanServiceAlwaysCannotBeCombinedWithASocket) {
  test::SpawnOptions spawn;
  spawn.argv = {VC_HOST_BINARY, "--backend", "podman", "--plugin-dir", VC_PLUGIN_DIR,
                "--podman-service", "always", "--podman-socket",
                "unix:///run/podman/podman.sock"};
  spawn.environment = test::host_environment({{"COMPUTER_ID", computer_id()}});
  test::ChildProcess process(spawn);
  const auto status = process.wait(30s);
  ASSERT_TRUE(status.has_value()) << "the host kept running";
  EXPECT_TRUE(status->exited && status->code != 0) << status->describe();
  EXPECT_NE(process.stderr_text().find("cannot be combined with --podman-socket"),
            std::string::npos)
      << process.stderr_text();
}

INSTANTIATE_TEST_SUITE_P(Podman, PodmanServiceTest, ::testing::Values(&test::podman_engine()),
                         engine_test_name);

}  // namespace
}  // namespace vc::integration
