// plugin_entry.cpp — the module's one exported symbol and the descriptor it returns.
//
// The host dlopen()s vc-backend-process.so, calls vc_plugin_entry_v1() and reads the
// descriptor: identity, capabilities, command-line options and the factory. Everything here
// is static data, valid for as long as the module is loaded. The module's name is
// "process" (--backend process, --scratch-root, VC_PROCESS_SCRATCH_ROOT): it is the backend the
// server's own tests run against.
#include <vc-backend-1/cpp/plugin_entry.h>

#include "process_backend.h"

#ifndef VC_PROCESS_BACKEND_VERSION
#define VC_PROCESS_BACKEND_VERSION "1.0.0"
#endif

namespace {

constexpr vc_option_decl kScratchRootOption = vc::sdk::option(
    VC_OPTION_STRING, "scratch-root",
    "Directory holding one scratch directory per computer (default: <plugin state "
    "dir>/computers). This backend is NOT a sandbox: commands run on this host "
    "with your permissions.",
    {.env_var = "VC_PROCESS_SCRATCH_ROOT"});

constexpr const vc_option_decl* kOptions[] = {&kScratchRootOption, nullptr};

constexpr vc::sdk::PluginInfo kPlugin = {
    .id = "org.mcp-virtual-computer.process",
    .name = "process",
    .version = VC_PROCESS_BACKEND_VERSION,
    .vendor = "mcp-virtual-computer",
    .description = "SDK example backend: runs commands as plain child processes on the host in a "
                   "per-computer scratch directory. NOT a sandbox: commands can read and change "
                   "the host.",
    // Deliberately without VC_CAP_ISOLATED, NETWORK_ACCESS, DESKTOP and IMAGES.
    .capabilities = VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_FACTORY_RESET |
                    VC_CAP_EXEC_STDIN | VC_CAP_WAIT_FOR_DEATH | VC_CAP_KILLS_PROCESS_TREE,
    .options = kOptions,
};

}  // namespace

// The factory reads {"options":{"scratch-root":...}}; no blocking I/O (the scratch root is only
// created by validate and create).
VC_SDK_EXPORT_PLUGIN(kPlugin, vc_process_backend::ProcessBackend::open)
