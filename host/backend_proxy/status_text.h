// status_text.h — names for vc_status values, and the host's reading of unknown codes.
#pragma once

#include <vc-backend-1/vc_status.h>

namespace vc::backend_proxy {

// "VC_E_NOT_FOUND", "VC_OK", ...; "plugin-private status", "unknown status" for the rest.
// [any-thread]
const char* status_name(vc_status status);

// The status the host acts on: an unknown negative code becomes VC_E_FAILED and an unknown
// positive one VC_OK, as vc_status.h asks of every consumer. [any-thread]
vc_status normalise_status(vc_status status);

}  // namespace vc::backend_proxy
