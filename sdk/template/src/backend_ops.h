// backend_ops.h — the C boundary of a template backend instance: the vc_backend_ops table.
#pragma once

#include <vc-backend-1/vc_sdk.h>

namespace vc_template {

// Static, so valid for as long as the module is loaded. Slots the template cannot implement
// (set_network_access, get/set_desktop_environment) are NULL: the host answers those with
// VC_E_UNSUPPORTED itself.
extern const vc_backend_ops kTemplateBackendOps;

}  // namespace vc_template
