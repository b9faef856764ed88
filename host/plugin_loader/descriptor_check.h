// descriptor_check.h — validating the descriptor a plugin's entry function returned, and copying
// it out into host-owned data.
//
// The descriptor is normalised first: min(struct_size, sizeof) bytes are copied into a zeroed
// struct, so fields a plugin built against an older 1.x header does not have read as absent,
// and fields of a newer 1.x header are ignored. Option declarations get the same treatment.
#pragma once

#include <filesystem>

#include <vc-backend-1/vc_plugin.h>

#include "common/failure.h"
#include "plugin_loader/plugin_module.h"

namespace vc::plugins {

// Bytes of a descriptor compiled against the 1.0 header: every field up to module_shutdown.
inline constexpr size_t kDescriptorSize_1_0 =
    offsetof(vc_plugin_descriptor, module_shutdown) + sizeof(vc_plugin_descriptor::module_shutdown);

// More declarations than this means the list is probably not NULL-terminated.
inline constexpr size_t kMaxOptionDecls = 256;

struct CheckedDescriptor {
  vc_plugin_descriptor descriptor{};  // normalised; its pointers point into the module
  PluginInfo info;                    // every string copied
};

// [any-thread] Accepts the descriptor, or says why not (message without the path): too small,
// wrong magic, another ABI major, a newer host minor needed, a missing id/name/create_backend,
// an invalid backend name, invalid option declarations. `host_abi_minor` is the minor this
// host speaks; only tests pass another one, to act as an older host.
Expected<CheckedDescriptor> check_descriptor(const vc_plugin_descriptor* raw,
                                             const std::filesystem::path& path,
                                             uint32_t host_abi_minor = VC_ABI_MINOR);

}  // namespace vc::plugins
