// plugin_entry.cpp — the module's one exported symbol and the descriptor it returns.
//
// The host dlopen()s vc-backend-template.so, calls vc_plugin_entry_v1() and reads the
// descriptor: identity, capabilities, command-line options and the factory. Everything here
// is static data, valid for as long as the module is loaded. The module keeps the name
// "template" (--backend template, --scratch-root, VC_TEMPLATE_SCRATCH_ROOT): it is the backend
// the server's own tests run against.
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/backend_ops.h>
#include <vc-backend-1/vc_sdk.h>

#include "process_backend.h"

#ifndef VC_PROCESS_BACKEND_VERSION
#define VC_PROCESS_BACKEND_VERSION "1.0.0"
#endif

namespace {

// [loop-thread] No blocking I/O here: the scratch root is only created by validate/create.
vc_status VC_CALL create_backend(const vc_host_services* host, const char* config_json,
                                 size_t config_len, vc_backend** out_backend, char* errbuf,
                                 size_t errbuf_cap) {
  if (host == nullptr || out_backend == nullptr) return VC_E_INVALID_ARGUMENT;
  return vc::sdk::guarded_create("template", errbuf, errbuf_cap, [&](std::string& error) {
    std::string_view config = config_json ? std::string_view(config_json, config_len) : "{}";
    return vc_process_backend::ProcessBackend::open(host, config, out_backend, error);
  });
}

constexpr vc_option_decl kScratchRootOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_STRING,
    .name = "scratch-root",
    .help = "Directory holding one scratch directory per computer (default: <plugin state "
            "dir>/computers). This backend is NOT a sandbox: commands run on this host "
            "with your permissions.",
    .default_value = nullptr,
    .env_var = "VC_TEMPLATE_SCRATCH_ROOT",
};

constexpr const vc_option_decl* kOptions[] = {&kScratchRootOption, nullptr};

constexpr vc_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,  // uses nothing added after ABI 1.0
    .reserved0 = 0,
    .id = "org.mcp-virtual-computer.template",
    .name = "template",
    .version = VC_PROCESS_BACKEND_VERSION,
    .vendor = "mcp-virtual-computer",
    .description = "SDK example backend: runs commands as plain child processes on the host in a "
                   "per-computer scratch directory. NOT a sandbox: commands can read and change "
                   "the host.",
    // Deliberately without VC_CAP_ISOLATED, NETWORK_ACCESS, DESKTOP and IMAGES.
    .capabilities = VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_FACTORY_RESET |
                    VC_CAP_EXEC_STDIN | VC_CAP_WAIT_FOR_DEATH | VC_CAP_KILLS_PROCESS_TREE,
    .options = kOptions,
    .create_backend = create_backend,
    .module_shutdown = nullptr,
};

}  // namespace

// Fast, idempotent, no I/O. Refuses (NULL) a host of another ABI major; the host checks the
// descriptor's versions itself as well.
VC_PLUGIN_ENTRY const vc_plugin_descriptor* VC_CALL vc_plugin_entry_v1(const vc_host_info* host) {
  if (host != nullptr && host->abi_major != VC_ABI_MAJOR) return nullptr;
  return &kDescriptor;
}
