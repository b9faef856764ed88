// docker_plugin.cpp — vc-backend-docker.so: the module's one exported symbol, its descriptor
// and its command-line options.
//
// Everything here is static data, valid while the module is loaded. The backend logic is the
// engine-neutral ContainerBackend, given Docker's profile.
#include <string>
#include <string_view>
#include <utility>

#include <vc-backend-1/cpp/plugin_entry.h>

#include "backend_option_decls.h"
#include "container_backend.h"
#include "docker_profile.h"

#ifndef VC_DOCKER_PLUGIN_VERSION
#define VC_DOCKER_PLUGIN_VERSION "0.1.0"
#endif

namespace {

constexpr const char* kDefaultDockerHost = "unix:///var/run/docker.sock";

// [host loop] No I/O: the engine is first contacted by validate.
vc_status open_docker_backend(const vc_host_services* host, std::string_view config_json,
                              vc_backend** out_backend, std::string& error) {
  vc::container::BackendIdentity identity;
  identity.profile = &vc::docker::docker_profile();
  identity.address_option = "docker-host";
  identity.default_address = kDefaultDockerHost;
  return vc::container::ContainerBackend::open(host, config_json, std::move(identity),
                                               out_backend, error);
}

constexpr vc_option_decl kDockerHostOption = vc::sdk::option(
    VC_OPTION_STRING, "docker-host",
    "Docker engine address: unix:///path/to/docker.sock or tcp://host:port (plain "
    "HTTP; TLS and ssh:// are not supported)",
    {.default_value = kDefaultDockerHost, .env_var = "DOCKER_HOST"});

// The address option, then the options every container backend shares.
constexpr auto kOptions = vc::container::container_plugin_options<1>({&kDockerHostOption});

constexpr vc::sdk::PluginInfo kPlugin = {
    .id = "org.mcp-virtual-computer.docker",
    .name = "docker",
    .version = VC_DOCKER_PLUGIN_VERSION,
    .vendor = "mcp-virtual-computer",
    .description = "Persistent Docker containers through the Docker Engine API (dockerd)",
    .capabilities = vc::container::kContainerBackendCapabilities,
    .options = kOptions.data(),
};

}  // namespace

VC_SDK_EXPORT_PLUGIN(kPlugin, open_docker_backend)
