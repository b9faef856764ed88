// plugin_entry.h — a module's descriptor, its options and its exported entry, written once.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp).
//
//   vc_status open_my_backend(const vc_host_services* host, std::string_view config_json,
//                             vc_backend** out_backend, std::string& error);
//
//   constexpr vc_option_decl kRootOption = vc::sdk::option(
//       VC_OPTION_STRING, "root", "Directory of the computers", {.env_var = "MY_ROOT"});
//   constexpr const vc_option_decl* kOptions[] = {&kRootOption, nullptr};
//   constexpr vc::sdk::PluginInfo kInfo = {.id = "org.example.mine", .name = "mine", ...,
//                                          .options = kOptions};
//   VC_SDK_EXPORT_PLUGIN(kInfo, open_my_backend)
//
// The descriptor is static data, valid while the module is loaded. create_backend() hands the
// factory the config document (never NULL: "{}" when the host gave none) and turns a failure,
// or an exception escaping it, into the "<name>: <why>" sentence the host shows the user.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <vc-backend-1/vc_sdk.h>

#include "backend_ops.h"

namespace vc::sdk {

// [loop-thread] What create_backend() calls: no blocking I/O (the engine is first contacted in
// validate). On failure returns an error status and sets `error` to a sentence for the user.
using BackendFactory = vc_status (*)(const vc_host_services* host, std::string_view config_json,
                                     vc_backend** out_backend, std::string& error);

// The author's part of vc_plugin_descriptor; the SDK fills in sizes, magic and ABI versions.
struct PluginInfo {
  const char* id = nullptr;     // reverse-DNS, unique: "org.example.docker"
  const char* name = nullptr;   // --backend name: [a-z0-9-]+
  const char* version = nullptr;
  const char* vendor = nullptr;
  const char* description = nullptr;  // one line for listings and --help
  vc_caps capabilities = 0;            // only what the backend really does
  const vc_option_decl* const* options = nullptr;  // NULL-terminated, or NULL
  std::uint32_t min_host_abi_minor = 0;            // 0: uses nothing added after ABI 1.0
};

// The optional fields of an option declaration.
struct OptionExtras {
  const char* default_value = nullptr;  // as typed on the command line; NULL = none
  const char* env_var = nullptr;        // read when the flag is absent; NULL = none
};

constexpr vc_option_decl option(vc_option_type type, const char* name, const char* help,
                                OptionExtras extras = {}) {
  return vc_option_decl{.struct_size = sizeof(vc_option_decl),
                        .type = type,
                        .name = name,
                        .help = help,
                        .default_value = extras.default_value,
                        .env_var = extras.env_var};
}

namespace plugin_entry_detail {

template <const PluginInfo& Info, BackendFactory Open>
vc_status VC_CALL create_backend(const vc_host_services* host, const char* config_json,
                                 size_t config_len, vc_backend** out_backend, char* errbuf,
                                 size_t errbuf_cap) {
  if (host == nullptr || out_backend == nullptr) return VC_E_INVALID_ARGUMENT;
  return guarded_create(Info.name, errbuf, errbuf_cap, [&](std::string& error) {
    std::string_view config = config_json ? std::string_view(config_json, config_len) : "{}";
    if (config.empty()) config = "{}";
    return Open(host, config, out_backend, error);
  });
}

}  // namespace plugin_entry_detail

template <const PluginInfo& Info, BackendFactory Open>
inline constexpr vc_plugin_descriptor kPluginDescriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = Info.min_host_abi_minor,
    .reserved0 = 0,
    .id = Info.id,
    .name = Info.name,
    .version = Info.version,
    .vendor = Info.vendor,
    .description = Info.description,
    .capabilities = Info.capabilities,
    .options = Info.options,
    .create_backend = &plugin_entry_detail::create_backend<Info, Open>,
    .module_shutdown = nullptr,
};

// Any thread; fast, no I/O. The descriptor, or NULL for a host of another ABI major (the host
// checks the descriptor's versions itself as well).
inline const vc_plugin_descriptor* descriptor_for_host(const vc_host_info* host,
                                                       const vc_plugin_descriptor* descriptor) {
  return host != nullptr && host->abi_major != VC_ABI_MAJOR ? nullptr : descriptor;
}

}  // namespace vc::sdk

// Defines the module's one exported symbol, vc_plugin_entry_v1, for `info` (a constexpr
// vc::sdk::PluginInfo with static storage) and `factory` (a vc::sdk::BackendFactory). Use it
// once per module, at namespace scope.
#define VC_SDK_EXPORT_PLUGIN(info, factory)                                                    \
  VC_PLUGIN_ENTRY const vc_plugin_descriptor* VC_CALL vc_plugin_entry_v1(                      \
      const vc_host_info* host) {                                                              \
    return ::vc::sdk::descriptor_for_host(host, &::vc::sdk::kPluginDescriptor<info, factory>); \
  }
