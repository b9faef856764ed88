// podman_plugin.cpp — vc-backend-podman.so: the module's one exported symbol, its descriptor
// and its command-line options.
//
// The backend logic is the engine-neutral ContainerBackend, given Podman's profile; this file
// adds the socket discovery (podman_socket.h) and, when no socket answers, a private API
// service the backend starts at its first validate (podman_service.h).
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/plugin_entry.h>

#include "backend_option_decls.h"
#include "container_backend.h"
#include "podman_profile.h"
#include "podman_service.h"
#include "podman_socket.h"

#ifndef VC_PODMAN_PLUGIN_VERSION
#define VC_PODMAN_PLUGIN_VERSION "0.1.0"
#endif

namespace {

constexpr const char* kSocketOption = "podman-socket";
constexpr const char* kServiceOption = "podman-service";

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || value[0] == '\0') return std::nullopt;
  return std::string(value);
}

// [host loop] The only I/O is connect(2) to the standard unix socket, which answers at once;
// a private service is started later, by the first validate, on the backend's own thread.
vc_status open_podman_backend(const vc_host_services* host, std::string_view config_json,
                              vc_backend** out_backend, std::string& error) {
  auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) config = nlohmann::json::object();
  auto& options = config["options"];
  if (!options.is_object()) options = nlohmann::json::object();

  vc::podman::SocketInputs inputs;
  if (auto it = options.find(kSocketOption); it != options.end() && it->is_string()) {
    inputs.explicit_address = it->get<std::string>();
  }
  inputs.docker_host = environment("DOCKER_HOST");
  inputs.is_root = geteuid() == 0;
  inputs.xdg_runtime_dir = environment("XDG_RUNTIME_DIR");
  inputs.pid = static_cast<long>(getpid());
  if (auto it = options.find(kServiceOption); it != options.end() && !it->is_null()) {
    auto mode =
        it->is_string() ? vc::podman::parse_service_mode(it->get<std::string>()) : std::nullopt;
    if (!mode) {
      error = "podman: --podman-service must be auto, never or always; got " + it->dump();
      return VC_E_INVALID_ARGUMENT;
    }
    inputs.mode = *mode;
  }
  if (inputs.mode == vc::podman::ServiceMode::kAlways && inputs.explicit_address &&
      !inputs.explicit_address->empty()) {
    error = "podman: --podman-service always starts a private service on a socket of its own; "
            "it cannot be combined with --podman-socket (or CONTAINER_HOST) " +
            *inputs.explicit_address;
    return VC_E_INVALID_ARGUMENT;
  }

  auto choice = vc::podman::choose_socket(inputs, &vc::podman::unix_socket_accepts);
  options[kSocketOption] = choice.address;

  vc::container::BackendIdentity identity;
  identity.profile = &vc::podman::podman_profile();
  identity.address_option = kSocketOption;
  identity.default_address = choice.address;
  if (choice.start_service) {
    identity.launcher = std::make_unique<vc::podman::PodmanService>(choice.socket_path, "podman");
  }
  return vc::container::ContainerBackend::open(host, config.dump(), std::move(identity),
                                               out_backend, error);
}

constexpr vc_option_decl kPodmanSocketOption = vc::sdk::option(
    VC_OPTION_STRING, kSocketOption,
    "Podman API socket: unix:///path/to/podman.sock (or just the path) or "
    "tcp://host:port. Default: DOCKER_HOST when it names a Podman socket, else "
    "/run/podman/podman.sock (root) or $XDG_RUNTIME_DIR/podman/podman.sock",
    {.env_var = "CONTAINER_HOST"});

constexpr vc_option_decl kPodmanServiceOption = vc::sdk::option(
    VC_OPTION_STRING, kServiceOption,
    "Start a private `podman system service` for this server: auto (when no socket "
    "answers and none was given), never, or always. It is stopped when the server "
    "exits; the computers stay in Podman's storage",
    {.default_value = "auto"});

// The address options, then the options every container backend shares.
constexpr auto kOptions =
    vc::container::container_plugin_options<2>({&kPodmanSocketOption, &kPodmanServiceOption});

constexpr vc::sdk::PluginInfo kPlugin = {
    .id = "org.mcp-virtual-computer.podman",
    .name = "podman",
    .version = VC_PODMAN_PLUGIN_VERSION,
    .vendor = "mcp-virtual-computer",
    .description = "Persistent Podman containers through Podman's Docker-compatible API",
    .capabilities = vc::container::kContainerBackendCapabilities,
    .options = kOptions.data(),
};

}  // namespace

VC_SDK_EXPORT_PLUGIN(kPlugin, open_podman_backend)
