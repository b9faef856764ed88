// container_engine.h — a container engine as the tests see it: which backend plugin runs it,
// how the host is pointed at it, and how a test looks at it from the outside.
//
// The outside view uses the engine's own CLI (docker, podman): to check what the product did
// (is a process left in the container, does the container still exist) and to set up what the
// product must cope with (a foreign container, a listener, a kill). The product never runs
// these CLIs.
#pragma once

#include <chrono>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "command_runner.h"
#include "json.h"

namespace vc::test {

struct ContainerEngine {
  std::string name;              // test-name suffix: "docker", "podman"
  std::string backend;           // --backend value
  std::string plugin_file;       // the module's file name, e.g. "vc-backend-docker.so"
  std::string address_option;    // the plugin's engine address option, e.g. "docker-host"
  std::string socket_path;       // the engine's API socket the tests use
  std::string cli;               // "docker" / "podman"
  Environment cli_environment;   // e.g. CONTAINERS_CONF for podman
  std::string bridge_network;    // the default bridge network's name in inspect output
  std::string setup_command;     // how to make the engine and images available
  // The engine-down message is "<prefix><address>: <reason><suffix>".
  std::string unreachable_prefix;
  std::string unreachable_suffix;

  // The host's argument pointing the plugin at socket_path.
  std::vector<std::string> address_args() const;
  std::string address() const { return "unix://" + socket_path; }

  // --- the outside view -----------------------------------------------------------------------
  bool socket_answers() const;  // GET /_ping answers "OK"
  CommandResult run_cli(const std::vector<std::string>& args,
                        std::chrono::milliseconds timeout = std::chrono::seconds(60)) const;
  // `inspect` of one container; std::nullopt when it does not exist.
  std::optional<Json> inspect_container(const std::string& container) const;
  bool image_present(const std::string& image) const;
  bool container_running(const std::string& container) const;
  // Removes the container at once, whatever its state; no error when it does not exist.
  void remove_container(const std::string& container) const;
  // The IPv4 address on the default bridge network; empty when it has none.
  std::string container_ip(const std::string& container) const;
  // The command name (/proc/<pid>/comm) of every process in a running container, read with a
  // separate exec through the CLI (so the list includes that exec's own `sh` and `cat`).
  std::vector<std::string> process_names(const std::string& container) const;
};

// How GoogleTest prints an engine parameter in failure messages: its name.
void PrintTo(const ContainerEngine* engine, std::ostream* out);

// The engines the suites run against, in order: docker, podman.
const std::vector<const ContainerEngine*>& all_engines();
const ContainerEngine& docker_engine();
const ContainerEngine& podman_engine();

}  // namespace vc::test
