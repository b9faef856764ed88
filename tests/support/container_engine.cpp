// container_engine.cpp — see container_engine.h.
#include "container_engine.h"

#include <sstream>

namespace vc::test {
namespace {

ContainerEngine make_docker() {
  ContainerEngine engine;
  engine.name = "docker";
  engine.backend = "docker";
  engine.plugin_file = "vc-backend-docker.so";
  engine.address_option = "docker-host";
  engine.socket_path = "/var/run/docker.sock";
  engine.cli = "docker";
  // The test's own CLI calls go to the same daemon as the host, whatever the environment says.
  engine.cli_environment = {{"DOCKER_HOST", "unix:///var/run/docker.sock"},
                            {"DOCKER_CONTEXT", std::nullopt}};
  engine.bridge_network = "bridge";
  engine.setup_command = "bash scripts/engines/docker-up.sh";
  engine.unreachable_prefix = "Cannot connect to the Docker engine at ";
  engine.unreachable_suffix = "Is dockerd running?";
  return engine;
}

ContainerEngine make_podman() {
  ContainerEngine engine;
  engine.name = "podman";
  engine.backend = "podman";
  engine.plugin_file = "vc-backend-podman.so";
  engine.address_option = "podman-socket";
  engine.socket_path = "/run/podman/podman.sock";
  engine.cli = "podman";
  // The configuration scripts/engines/podman-up.sh writes (runc, low default ulimits).
  engine.cli_environment = {{"CONTAINERS_CONF", "/etc/mcp-virtual-computer-test/containers.conf"}};
  engine.bridge_network = "podman";
  engine.setup_command = "bash scripts/engines/podman-up.sh";
  engine.unreachable_prefix = "Cannot connect to the Podman service at ";
  engine.unreachable_suffix = "Is `podman system service` running on that socket?";
  return engine;
}

}  // namespace

std::vector<std::string> ContainerEngine::address_args() const {
  return {"--" + address_option, address()};
}

bool ContainerEngine::socket_answers() const {
  const CommandResult result =
      run_command({"curl", "-sS", "--max-time", "5", "--unix-socket", socket_path,
                   "http://engine/_ping"},
                  std::chrono::seconds(10));
  return result.ok() && trim_trailing(result.out) == "OK";
}

CommandResult ContainerEngine::run_cli(const std::vector<std::string>& args,
                                       std::chrono::milliseconds timeout) const {
  std::vector<std::string> argv{cli};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_command(argv, timeout, {}, cli_environment);
}

std::optional<Json> ContainerEngine::inspect_container(const std::string& container) const {
  const CommandResult result = run_cli({"container", "inspect", container});
  if (!result.ok()) return std::nullopt;
  Json parsed = Json::parse(result.out, nullptr, false);
  if (parsed.is_array() && !parsed.empty()) return parsed.front();
  return std::nullopt;
}

bool ContainerEngine::image_present(const std::string& image) const {
  return run_cli({"image", "inspect", image}).ok();
}

bool ContainerEngine::container_running(const std::string& container) const {
  const auto inspected = inspect_container(container);
  return inspected && inspected->value(Json::json_pointer("/State/Running"), false);
}

void ContainerEngine::remove_container(const std::string& container) const {
  // Podman's `rm -f` waits for the stop timeout first unless told not to.
  if (cli == "podman") {
    run_cli({"rm", "-f", "-t", "0", container});
  } else {
    run_cli({"rm", "-f", container});
  }
}

std::string ContainerEngine::container_ip(const std::string& container) const {
  const auto inspected = inspect_container(container);
  if (!inspected) return {};
  const Json networks = inspected->value(Json::json_pointer("/NetworkSettings/Networks"), Json::object());
  if (networks.contains(bridge_network)) {
    return networks[bridge_network].value("IPAddress", "");
  }
  for (const auto& [network, settings] : networks.items()) {
    const std::string address = settings.value("IPAddress", "");
    if (!address.empty()) return address;
  }
  return {};
}

std::vector<std::string> ContainerEngine::process_names(const std::string& container) const {
  // `cat` keeps going past a process that exits while it reads.
  const CommandResult result =
      run_cli({"exec", container, "sh", "-c", "cat /proc/[0-9]*/comm 2>/dev/null; true"});
  std::vector<std::string> names;
  std::istringstream lines(result.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) names.push_back(line);
  }
  return names;
}

void PrintTo(const ContainerEngine* engine, std::ostream* out) {
  *out << (engine != nullptr ? engine->name : "(none)");
}

const ContainerEngine& docker_engine() {
  static const ContainerEngine engine = make_docker();
  return engine;
}

const ContainerEngine& podman_engine() {
  static const ContainerEngine engine = make_podman();
  return engine;
}

const std::vector<const ContainerEngine*>& all_engines() {
  static const std::vector<const ContainerEngine*> engines = {&docker_engine(), &podman_engine()};
  return engines;
}

}  // namespace vc::test
