// plugin_entry.cpp — the module's descriptor, its option and its one exported symbol.
//
// Rename id, name and description for your backend, and declare only the capabilities it
// really has. Static data, valid while the module is loaded.
#include <vc-backend-1/cpp/plugin_entry.h>

#include "example_backend.h"

namespace {

constexpr vc_option_decl kComputersDirOption = vc::sdk::option(
    VC_OPTION_STRING, "computers-dir",
    "Directory holding one directory per computer (default: <plugin state dir>/computers). "
    "NOT a sandbox: commands run on this host with your permissions.",
    {.env_var = "VC_TEMPLATE_COMPUTERS_DIR"});
constexpr const vc_option_decl* kOptions[] = {&kComputersDirOption, nullptr};

constexpr vc::sdk::PluginInfo kPlugin = {
    .id = "org.mcp-virtual-computer.template",
    .name = "template",
    .version = "1.0.0",
    .vendor = "mcp-virtual-computer",
    .description = "Template backend: computers are directories on this host and commands run "
                   "as local processes. NOT a sandbox: commands can read and change the host.",
    .capabilities = VC_CAP_PERSISTENT | VC_CAP_EXEC_STDIN | VC_CAP_KILLS_PROCESS_TREE,
    .options = kOptions,
};

}  // namespace

VC_SDK_EXPORT_PLUGIN(kPlugin, example_backend::open_backend)
