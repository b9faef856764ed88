// docker_plugin.cpp — vc-backend-docker.so: the module's one exported symbol, its descriptor
// and its command-line options.
//
// Everything here is static data, valid while the module is loaded. The backend logic is the
// engine-neutral ContainerBackend, given Docker's profile.
#include <utility>

#include <vc-backend-1/vc_sdk.h>

#include "backend_option_decls.h"
#include "container_backend.h"
#include "docker_profile.h"

#ifndef VC_DOCKER_PLUGIN_VERSION
#define VC_DOCKER_PLUGIN_VERSION "0.1.0"
#endif

namespace {

constexpr const char* kDefaultDockerHost = "unix:///var/run/docker.sock";

// [host loop] No I/O: the engine is first contacted by validate.
vc_status VC_CALL create_backend(const vc_host_services* host, const char* config_json,
                                 size_t config_len, vc_backend** out_backend, char* errbuf,
                                 size_t errbuf_cap) {
  vc::container::BackendIdentity identity;
  identity.profile = &vc::docker::docker_profile();
  identity.address_option = "docker-host";
  identity.default_address = kDefaultDockerHost;
  return vc::container::create_container_backend(host, config_json, config_len,
                                                 std::move(identity), out_backend, errbuf,
                                                 errbuf_cap);
}

constexpr vc_option_decl kDockerHostOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_STRING,
    .name = "docker-host",
    .help = "Docker engine address: unix:///path/to/docker.sock or tcp://host:port (plain "
            "HTTP; TLS and ssh:// are not supported)",
    .default_value = kDefaultDockerHost,
    .env_var = "DOCKER_HOST",
};

// The address option, then the options every container backend shares.
constexpr const vc_option_decl* kOptions[] = {&kDockerHostOption,
                                              &vc::container::kImageOption,
                                              &vc::container::kCpuOption,
                                              &vc::container::kMemoryOption,
                                              &vc::container::kPidsLimitOption,
                                              &vc::container::kHardenOption,
                                              &vc::container::kCreateOverridesOption,
                                              &vc::container::kEngineTimeoutOption,
                                              &vc::container::kDesktopImageContextOption,
                                              &vc::container::kExecAgentOption,
                                              &vc::container::kExecAgentBinaryOption,
                                              nullptr};

constexpr vc_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,  // uses nothing added after ABI 1.0
    .reserved0 = 0,
    .id = "org.mcp-virtual-computer.docker",
    .name = "docker",
    .version = VC_DOCKER_PLUGIN_VERSION,
    .vendor = "mcp-virtual-computer",
    .description = "Persistent Docker containers through the Docker Engine API (dockerd)",
    .capabilities = vc::container::kContainerBackendCapabilities,
    .options = kOptions,
    .create_backend = create_backend,
    .module_shutdown = nullptr,
};

}  // namespace

// Fast, idempotent, no I/O. Refuses (NULL) a host of another ABI major.
VC_PLUGIN_ENTRY const vc_plugin_descriptor* VC_CALL vc_plugin_entry_v1(const vc_host_info* host) {
  if (host != nullptr && host->abi_major != VC_ABI_MAJOR) return nullptr;
  return &kDescriptor;
}
