// engine_test.cpp — see engine_test.h.
#include "engine_test.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include "host_environment.h"
#include "test_names.h"

namespace vc::integration {
namespace {

// VC_REQUIRE_ENGINES="docker,podman": the engines the environment promises (the README's test
// command sets it). A required engine that is unavailable fails the test instead of skipping
// it, so a broken setup cannot pass as a green run of skipped cases.
bool engine_required(const test::ContainerEngine& engine) {
  const char* value = std::getenv("VC_REQUIRE_ENGINES");
  if (value == nullptr) return false;
  std::stringstream list(value);
  std::string name;
  while (std::getline(list, name, ',')) {
    if (name == engine.name) return true;
  }
  return false;
}

#define VC_ENGINE_UNAVAILABLE(engine, message)                                      \
  do {                                                                             \
    if (engine_required(engine)) {                                                 \
      FAIL() << "VC_REQUIRE_ENGINES names " << (engine).name << ": " << message;   \
    }                                                                              \
    GTEST_SKIP() << message;                                                       \
  } while (false)

std::filesystem::path plugin_path(const test::ContainerEngine& engine) {
  return std::filesystem::path(VC_PLUGIN_DIR) / engine.plugin_file;
}

// Port as it appears in /proc/net/tcp: four upper-case hex digits.
std::string hex_port(int port) {
  char text[8];
  std::snprintf(text, sizeof text, "%04X", static_cast<unsigned>(port));
  return text;
}

// The pid in a test-made name "<prefix>-<pid>-<n>" (test_names.h); 0 when there is none.
pid_t creator_pid(const std::string& name) {
  const auto last = name.rfind('-');
  if (last == std::string::npos || last == 0) return 0;
  const auto before = name.rfind('-', last - 1);
  if (before == std::string::npos) return 0;
  const std::string digits = name.substr(before + 1, last - before - 1);
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return 0;
  }
  return static_cast<pid_t>(std::stol(digits));
}

bool process_alive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

// TearDown cannot run when a test process dies (a sanitizer abort, a kill), so each test
// process first removes what dead test processes left behind: containers named by this
// suite ("kilntainer-it-<pid>-<n>", or labelled vc-test=1) whose creating process is gone.
void sweep_leftovers(const test::ContainerEngine& engine) {
  static bool swept = false;
  if (swept) return;
  swept = true;
  std::vector<std::string> names;
  const std::vector<std::string> filters = {"name=kilntainer-it-",
                                            "label=" + std::string(kTestLabel)};
  for (const auto& filter : filters) {
    const auto listed = engine.run_cli({"ps", "-a", "--filter", filter, "--format", "{{.Names}}"});
    std::istringstream lines(listed.out);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) names.push_back(line);
    }
  }
  // Desktop computers' firewall helpers are "kilntainer-it-<pid>-<n>.firewall".
  for (const auto& name : names) {
    const pid_t pid = creator_pid(name.substr(0, name.find('.')));
    if (pid > 0 && !process_alive(pid)) engine.remove_container(name);
  }
  // And their checkpoint images (".../mcp-virtual-computer-checkpoint/it-<pid>-<n>:<name>").
  const auto images = engine.run_cli({"images", "--format", "{{.Repository}}:{{.Tag}}"});
  std::istringstream image_lines(images.out);
  for (std::string line; std::getline(image_lines, line);) {
    const auto at = line.find("/it-");
    if (at == std::string::npos || line.find("mcp-virtual-computer-") == std::string::npos) continue;
    const std::string id = line.substr(at + 1, line.find(':', at) - at - 1);
    const pid_t pid = creator_pid("kilntainer-" + id);
    if (pid > 0 && !process_alive(pid)) engine.run_cli({"rmi", "-f", line});
  }
  // And their network-off records, "kilntainer-it-<pid>-<n>.network-off" volumes.
  const auto volumes =
      engine.run_cli({"volume", "ls", "--filter", "name=kilntainer-it-", "--format", "{{.Name}}"});
  std::istringstream volume_lines(volumes.out);
  for (std::string line; std::getline(volume_lines, line);) {
    const pid_t pid = creator_pid(line.substr(0, line.find('.')));
    if (pid > 0 && !process_alive(pid)) engine.run_cli({"volume", "rm", "-f", line});
  }
}

}  // namespace

std::vector<std::string> checkpoint_images_of(const test::ContainerEngine& engine,
                                              const std::string& computer_id) {
  std::vector<std::string> references;
  const auto images = engine.run_cli({"images", "--format", "{{.Repository}}:{{.Tag}}"});
  std::istringstream lines(images.out);
  for (std::string line; std::getline(lines, line);) {
    for (const char* repository : {"mcp-virtual-computer-checkpoint/", "mcp-virtual-computer-base/"}) {
      if (line.find(repository + computer_id + ":") != std::string::npos) references.push_back(line);
    }
  }
  return references;
}

void remove_checkpoint_images(const test::ContainerEngine& engine, const std::string& computer_id) {
  for (const auto& reference : checkpoint_images_of(engine, computer_id)) {
    engine.run_cli({"rmi", "-f", reference});
  }
}

std::string engine_test_name(const ::testing::TestParamInfo<const test::ContainerEngine*>& info) {
  return info.param->name;
}

void EngineTest::SetUp() {
  const auto plugin = plugin_path(engine());
  if (!std::filesystem::exists(plugin)) {
    VC_ENGINE_UNAVAILABLE(engine(), engine().plugin_file
                                        << " is not built in this tree (looked for " << plugin
                                        << "); the " << engine().name << " suites run once it is");
  }
  if (!engine().socket_answers()) {
    VC_ENGINE_UNAVAILABLE(engine(), engine().socket_path
                                        << " does not answer GET /_ping, so there is no "
                                        << engine().name << " engine to test against; run `"
                                        << engine().setup_command << "` first");
  }
  for (const char* image : {kDebianImage, kBusyboxImage}) {
    if (!engine().image_present(image)) {
      VC_ENGINE_UNAVAILABLE(engine(), "the " << engine().name << " engine has no image "
                                                  << image << "; run `"
                                                  << engine().setup_command << "` first");
    }
  }
  sweep_leftovers(engine());
  state_dir_ = std::make_unique<test::TempDirectory>("vc-integration-state");
  computer_id_ = another_computer_id();
}

void EngineTest::TearDown() {
  // Also after a failure or a skip: nothing the test made may outlive it.
  for (const auto& id : computer_ids_) {
    engine().remove_container(container_name_for(id) + ".firewall");
    engine().remove_container(container_name_for(id));
    engine().remove_container(container_name_for(id) + ".replaced");
    engine().run_cli({"volume", "rm", "-f", container_name_for(id) + ".network-off"});
    remove_checkpoint_images(engine(), id);
  }
  for (const auto& name : extra_containers_) engine().remove_container(name);
}

std::string EngineTest::another_computer_id() {
  std::string id = test::unique_name("it");
  computer_ids_.push_back(id);
  // A leftover of an earlier run with the same pid would change what the test sees.
  engine().remove_container(container_name_for(id));
  return id;
}

void EngineTest::remove_at_teardown(const std::string& container_name) {
  extra_containers_.push_back(container_name);
}

std::vector<std::string> EngineTest::host_args(const HostOptions& options) const {
  std::vector<std::string> args = {"--backend",   engine().backend,
                                   "--plugin-dir", VC_PLUGIN_DIR,
                                   "--state-dir", state_dir_->path().string(),
                                   "--log-level", "debug",
                                   "--image",     options.image};
  if (options.default_address) {
    for (const auto& arg : engine().address_args()) args.push_back(arg);
  }
  if (!options.shell.empty()) {
    args.push_back("--shell");
    args.push_back(options.shell);
  }
  if (const auto mode = exec_agent_mode()) {
    args.push_back("--exec-agent");
    args.push_back(*mode);
  }
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  return args;
}

std::optional<std::string> EngineTest::exec_agent_mode() {
  const char* mode = std::getenv("VC_TEST_EXEC_AGENT");
  if (mode == nullptr || *mode == '\0') return std::nullopt;
  return std::string(mode);
}

test::Environment EngineTest::host_environment_for(const HostOptions& options) const {
  test::Environment environment = engine().cli_environment;
  environment["COMPUTER_ID"] = options.computer_id.value_or(computer_id_);
  for (const auto& [name, value] : options.environment) environment[name] = value;
  return test::host_environment(environment);
}

std::unique_ptr<test::McpClient> EngineTest::start_host(const HostOptions& options) {
  test::McpClientOptions client;
  client.binary = VC_HOST_BINARY;
  client.args = host_args(options);
  client.environment = host_environment_for(options);
  client.default_timeout = 180s;

  auto host = std::make_unique<test::McpClient>(client);
  host->initialize();
  return host;
}

Json EngineTest::call_terminal(test::McpClient& host, const Json& arguments,
                               std::chrono::milliseconds timeout) {
  return host.call_tool("terminal_execute", arguments, timeout);
}

Json EngineTest::execute(test::McpClient& host, const Json& arguments,
                         std::chrono::milliseconds timeout) {
  const Json result = call_terminal(host, arguments, timeout);
  EXPECT_FALSE(test::McpClient::is_error(result))
      << "terminal_execute " << arguments.dump() << " failed: " << result.dump();
  return test::McpClient::payload_of(result);
}

void EngineTest::close_host(std::unique_ptr<test::McpClient>& host) {
  const test::ExitStatus status = host->close(30s);
  EXPECT_TRUE(status.exited && status.code == 0)
      << "the host did not exit cleanly after stdin EOF: " << status.describe() << "\n"
      << host->diagnostics();
  host.reset();
}

std::unique_ptr<test::BackendDriver> EngineTest::open_backend(const Json& extra_options) {
  Json options = {{engine().address_option, engine().address()}, {"image", kDebianImage}};
  if (const auto mode = exec_agent_mode()) options["exec-agent"] = *mode;
  for (const auto& [name, value] : extra_options.items()) options[name] = value;
  const auto state = state_dir_->path() / "driver";
  std::filesystem::create_directories(state);
  return std::make_unique<test::BackendDriver>(plugin_path(engine()), options, state);
}

Json EngineTest::create_request(const std::string& id, bool network_access) const {
  return {{"computer_id", id},          {"temporary", false},
          {"network_access", network_access}, {"desktop_environment", false},
          {"workspace_directory", "/workspace"}, {"shell", "/bin/bash"},
          {"image", kDebianImage}};
}

Json EngineTest::exec_request(const std::string& id, const std::string& command) const {
  return {{"computer_id", id},    {"command", command},        {"shell", "/bin/bash"},
          {"timeout_ms", 60'000}, {"output_limit", 1'048'576}};
}

std::string EngineTest::start_listener(const std::string& banner, int port) {
  const std::string name = test::unique_name("vc-test-listener");
  remove_at_teardown(name);
  const std::vector<std::string> run = {"run", "-d", "--name", name, "--label", kTestLabel,
                                        kBusyboxImage, "nc", "-ll", "-p", std::to_string(port),
                                        "-e", "echo", banner};
  const test::CommandResult started = engine().run_cli(run);
  if (!started.ok()) {
    ADD_FAILURE() << "could not start the listener: " << started.describe(run);
    return {};
  }
  // Ready once the socket is in LISTEN state (0A) in the listener's own network namespace
  // (busybox nc listens on the IPv6 wildcard, which also takes IPv4 connections).
  const std::string listening = ":" + hex_port(port) + " ";
  auto is_listening = [&](const std::string& table) {
    std::istringstream lines(table);
    for (std::string line; std::getline(lines, line);) {
      const auto local = line.find(listening);
      if (local != std::string::npos && line.find(":0000 0A ", local) != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto tcp = engine().run_cli({"exec", name, "cat", "/proc/net/tcp", "/proc/net/tcp6"});
    if (tcp.ok() && is_listening(tcp.out)) {
      const std::string address = engine().container_ip(name);
      if (address.empty()) ADD_FAILURE() << "the listener " << name << " has no bridge address";
      return address;
    }
    std::this_thread::sleep_for(100ms);
  }
  ADD_FAILURE() << "the listener " << name << " did not listen on port " << port << " in 30 s";
  return {};
}

std::vector<std::string> EngineTest::wait_until_process_gone(const std::string& name,
                                                             std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    auto names = engine().process_names(container_name());
    const bool present = std::find(names.begin(), names.end(), name) != names.end();
    if (!present || std::chrono::steady_clock::now() >= deadline) return names;
    std::this_thread::sleep_for(200ms);
  }
}

}  // namespace vc::integration
