// example_backend.h — the template backend's factory, called by create_backend().
#pragma once

#include <string>
#include <string_view>

#include <vc-backend-1/vc_sdk.h>

namespace example_backend {

// [loop-thread] Reads {"options":{"computers-dir":...}}; no I/O. On failure returns an error
// status and sets `error` to a sentence for the user.
vc_status open_backend(const vc_host_services* host, std::string_view config_json,
                       vc_backend** out_backend, std::string& error);

}  // namespace example_backend
