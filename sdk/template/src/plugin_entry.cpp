// plugin_entry.cpp — the module's one exported symbol, its descriptor and its option.
//
// Static data, valid while the module is loaded. Rename id, name and description for your
// backend, and declare the capabilities it really has.
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/backend_ops.h>

#include "example_backend.h"

namespace {

// [loop-thread] No I/O here: validate is where the engine is first contacted.
vc_status VC_CALL create_backend(const vc_host_services* host, const char* config_json,
                                 size_t config_len, vc_backend** out_backend, char* errbuf,
                                 size_t errbuf_cap) {
  if (host == nullptr || out_backend == nullptr) return VC_E_INVALID_ARGUMENT;
  return vc::sdk::guarded_create("example", errbuf, errbuf_cap, [&](std::string& error) {
    std::string_view config = config_json ? std::string_view(config_json, config_len) : "{}";
    return example_backend::open_backend(host, config, out_backend, error);
  });
}

constexpr vc_option_decl kComputersDirOption = {
    .struct_size = sizeof(vc_option_decl),
    .type = VC_OPTION_STRING,
    .name = "computers-dir",
    .help = "Directory holding one directory per computer (default: <plugin state dir>/computers). "
            "NOT a sandbox: commands run on this host with your permissions.",
    .default_value = nullptr,
    .env_var = "VC_EXAMPLE_COMPUTERS_DIR",
};
constexpr const vc_option_decl* kOptions[] = {&kComputersDirOption, nullptr};

constexpr vc_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,  // uses nothing added after ABI 1.0
    .reserved0 = 0,
    .id = "org.mcp-virtual-computer.example",
    .name = "example",
    .version = "1.0.0",
    .vendor = "mcp-virtual-computer",
    .description = "Template backend: computers are directories on this host and commands run "
                   "as local processes. NOT a sandbox: commands can read and change the host.",
    .capabilities = VC_CAP_PERSISTENT | VC_CAP_EXEC_STDIN | VC_CAP_KILLS_PROCESS_TREE,
    .options = kOptions,
    .create_backend = create_backend,
    .module_shutdown = nullptr,
};

}  // namespace

// Fast, idempotent, no I/O; NULL refuses a host of another ABI major.
VC_PLUGIN_ENTRY const vc_plugin_descriptor* VC_CALL vc_plugin_entry_v1(const vc_host_info* host) {
  return host != nullptr && host->abi_major != VC_ABI_MAJOR ? nullptr : &kDescriptor;
}
