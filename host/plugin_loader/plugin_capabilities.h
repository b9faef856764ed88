// plugin_capabilities.h — the printable names of the VC_CAP_* bits a plugin declares.
#pragma once

#include <string>
#include <vector>

#include <vc-backend-1/vc_sdk.h>

namespace vc::plugins {

// [any-thread] Names of the capability bits set in `caps`, e.g. {"persistent", "restart"}, in
// bit order. Bits this host does not know are left out (vc_backend.h: unknown bits are
// ignored).
std::vector<std::string> capability_names(vc_caps caps);

}  // namespace vc::plugins
