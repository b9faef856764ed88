// docker_plugin.cpp — vc-backend-docker.so: the module's one exported symbol, its descriptor
// and its command-line options.
//
// Everything here is static data, valid while the module is loaded. The backend logic is the
// engine-neutral ContainerBackend, given Docker's profile.
#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <string_view>

#include <vc-backend-1/vc_sdk.h>

#include "backend_options.h"
#include "container_backend.h"
#include "docker_profile.h"

#ifndef VC_DOCKER_PLUGIN_VERSION
#define VC_DOCKER_PLUGIN_VERSION "0.1.0"
#endif

namespace {

constexpr const char* kDefaultDockerHost = "unix:///var/run/docker.sock";

// Copies `message` into the host's error buffer, always NUL-terminated and truncated to fit.
void write_error(char* errbuf, size_t errbuf_cap, std::string_view message) {
  if (errbuf == nullptr || errbuf_cap == 0) return;
  size_t n = std::min(message.size(), errbuf_cap - 1);
  std::memcpy(errbuf, message.data(), n);
  errbuf[n] = '\0';
}

// [loop-thread] No I/O: the engine is first contacted by validate.
vc_status VC_CALL create_backend(const vc_host_services* host, const char* config_json,
                                 size_t config_len, vc_backend** out_backend, char* errbuf,
                                 size_t errbuf_cap) {
  if (host == nullptr || out_backend == nullptr) return VC_E_INVALID_ARGUMENT;
  try {
    std::string error;
    std::string_view config = config_json ? std::string_view(config_json, config_len) : "{}";
    vc::container::BackendIdentity identity{&vc::docker::docker_profile(), "docker-host",
                                            kDefaultDockerHost};
    vc_status status = vc::container::ContainerBackend::create(host, config, identity,
                                                               out_backend, error);
    if (status != VC_OK) write_error(errbuf, errbuf_cap, error);
    return status;
  } catch (const std::bad_alloc&) {
    write_error(errbuf, errbuf_cap, "docker: out of memory");
    return VC_E_NO_MEMORY;
  } catch (const std::exception& e) {
    write_error(errbuf, errbuf_cap, std::string("docker: ") + e.what());
    return VC_E_FAILED;
  }
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

constexpr vc_option_decl kImageOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_STRING,
    .name = "image",
    .help = "Image new computers are created from. Images other than debian:bookworm-slim "
            "need --tool-instruction-override describing them",
    .default_value = vc::container::kDefaultImage,
    .env_var = nullptr,
};

constexpr vc_option_decl kCpuOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_NUMBER,
    .name = "cpu",
    .help = "CPU limit of new computers, in CPUs (e.g. 1.5); default: no limit",
    .default_value = nullptr,
    .env_var = nullptr,
};

constexpr vc_option_decl kMemoryOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_STRING,
    .name = "memory",
    .help = "Memory limit of new computers (e.g. 512m, 2g); default: no limit",
    .default_value = nullptr,
    .env_var = nullptr,
};

constexpr vc_option_decl kPidsLimitOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_INTEGER,
    .name = "pids-limit",
    .help = "Most processes a new computer may run at once; default: no limit",
    .default_value = nullptr,
    .env_var = nullptr,
};

constexpr vc_option_decl kHardenOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_BOOL,
    .name = "harden",
    .help = "Create computers with every capability dropped except CHOWN, DAC_OVERRIDE, "
            "FOWNER, FSETID, KILL, SETGID and SETUID, and with no-new-privileges. Breaks sudo, "
            "su and other setuid programs, ping, binding ports below 1024, chroot and mknod "
            "(see plugins/docker/README.md)",
    .default_value = "false",
    .env_var = nullptr,
};

constexpr vc_option_decl kCreateOverridesOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_STRING,
    .name = "create-overrides",
    .help = "JSON object merged into the Docker Engine API container create request of new "
            "computers, e.g. '{\"HostConfig\":{\"ShmSize\":268435456}}' (replaces the "
            "original's --docker-run-flag)",
    .default_value = nullptr,
    .env_var = nullptr,
};

constexpr vc_option_decl kEngineTimeoutOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_INTEGER,
    .name = "engine-timeout",
    .help = "Seconds an ordinary Docker engine call may take (image pulls and commands are "
            "not limited by it)",
    .default_value = "30",
    .env_var = nullptr,
};

constexpr const vc_option_decl* kOptions[] = {
    &kDockerHostOption, &kImageOption,           &kCpuOption,           &kMemoryOption,
    &kPidsLimitOption,  &kHardenOption,          &kCreateOverridesOption, &kEngineTimeoutOption,
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
    // No VC_CAP_DESKTOP: headless images only, for now.
    .capabilities = VC_CAP_ISOLATED | VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_FACTORY_RESET |
                    VC_CAP_NETWORK_ACCESS | VC_CAP_EXEC_STDIN | VC_CAP_WAIT_FOR_DEATH |
                    VC_CAP_KILLS_PROCESS_TREE | VC_CAP_IMAGES,
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
