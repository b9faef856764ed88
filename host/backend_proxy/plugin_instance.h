// plugin_instance.h — calling a descriptor's create_backend and checking what it returned.
#pragma once

#include <vc-backend-1/ext/vc_backend_checkpoints.h>
#include <vc-backend-1/ext/vc_backend_desktop_control.h>
#include <vc-backend-1/ext/vc_backend_processes.h>
#include <vc-backend-1/vc_backend.h>

#include "common/failure.h"
#include "common/json.h"
#include "backend_proxy/backend.h"
#include "backend_proxy/host_services.h"
#include "plugin_loader/plugin_module.h"

namespace vc::backend_proxy {

// Size of the create_backend error buffer: room for an actionable sentence or two.
inline constexpr size_t kCreateErrorBufferSize = 1024;

// A backend instance the plugin created, with its operations table normalised (copied into a
// zeroed table; slots beyond the plugin's struct_size read as NULL).
struct PluginInstance {
  vc_backend* backend = nullptr;  // passed back as `self`; owned by the plugin
  vc_backend_ops ops{};
  // The desktop-control extension's table, normalised the same way; all NULL when the plugin
  // offers none (ext/vc_backend_desktop_control.h).
  vc_backend_desktop_control desktop_control{};
  // The checkpoints extension's table (ext/vc_backend_checkpoints.h): all NULL unless the
  // plugin returned one covering every operation; `checkpoints_offer` says what it returned.
  vc_backend_checkpoints checkpoints{};
  ExtensionOffer checkpoints_offer;
  // The processes extension's table (ext/vc_backend_processes.h), read the same way.
  vc_backend_processes processes{};
  ExtensionOffer processes_offer;
};

// The config document of create_backend: {"options": options} (an object when options is null).
Json make_backend_config(const Json& options);

// [loop-thread] Calls create_backend. A failure carries the plugin's errbuf message:
// "The docker backend failed to start: <message>".
Expected<PluginInstance> create_plugin_instance(const plugins::PluginModule& module,
                                                const HostServices& services, const Json& options);

}  // namespace vc::backend_proxy
