#include "backend_proxy/status_text.h"

namespace vc::backend_proxy {

const char* status_name(vc_status status) {
  switch (status) {
    case VC_OK: return "VC_OK";
    case VC_NOTE_TRUNCATED: return "VC_NOTE_TRUNCATED";
    case VC_E_FAILED: return "VC_E_FAILED";
    case VC_E_INVALID_ARGUMENT: return "VC_E_INVALID_ARGUMENT";
    case VC_E_UNSUPPORTED: return "VC_E_UNSUPPORTED";
    case VC_E_NOT_FOUND: return "VC_E_NOT_FOUND";
    case VC_E_ALREADY_EXISTS: return "VC_E_ALREADY_EXISTS";
    case VC_E_CANCELLED: return "VC_E_CANCELLED";
    case VC_E_TIMEOUT: return "VC_E_TIMEOUT";
    case VC_E_BUSY: return "VC_E_BUSY";
    case VC_E_UNAVAILABLE: return "VC_E_UNAVAILABLE";
    case VC_E_PERMISSION: return "VC_E_PERMISSION";
    case VC_E_NO_MEMORY: return "VC_E_NO_MEMORY";
    case VC_E_INCOMPATIBLE: return "VC_E_INCOMPATIBLE";
    case VC_E_BACKPRESSURE: return "VC_E_BACKPRESSURE";
    case VC_E_COMPUTER_DIED: return "VC_E_COMPUTER_DIED";
    case VC_E_COMPUTER_STOPPED: return "VC_E_COMPUTER_STOPPED";
    default: break;
  }
  if (status <= VC_E_PLUGIN_BASE) return "plugin-private status";
  if (status <= VC_E_EXTENSION_BASE && status > VC_E_EXTENSION_BASE - 1000) {
    return "SDK extension status";
  }
  return "unknown status";
}

vc_status normalise_status(vc_status status) {
  if (status == VC_OK || status == VC_NOTE_TRUNCATED) return status;
  if (status > 0) return VC_OK;
  if (status >= VC_E_COMPUTER_STOPPED) return status;  // a core code this host knows
  return VC_E_FAILED;
}

}  // namespace vc::backend_proxy
