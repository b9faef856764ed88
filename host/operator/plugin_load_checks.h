// plugin_load_checks.h — validate-plugin's first checks: loading the file with the host's own
// loader, one check per stage, then the descriptor's fields.
#pragma once

#include <filesystem>
#include <memory>

#include "operator/plugin_check_report.h"
#include "plugin_loader/plugin_module.h"

namespace vc::operator_cli {

// [loop-thread] load.file (the file system's view: exists, regular, not writable by others),
// load.elf (an ELF shared object for this machine that exports vc_plugin_entry_v1, read
// without running any of it), load.module (dlopen, the entry function and the host's
// descriptor checks). Returns the module, or null after the first failed stage.
std::shared_ptr<plugins::PluginModule> load_plugin_with_checks(const std::filesystem::path& file,
                                                               PluginCheckReport& report);

// [any-thread] descriptor.identity (id, name, vendor, description), descriptor.version
// (semver), descriptor.abi, descriptor.capabilities (names the bits; unknown bits fail), and
// descriptor.file-name (the file is vc-backend-<name>.so, so that --backend NAME finds it).
void check_descriptor_fields(const plugins::PluginInfo& info, PluginCheckReport& report);

}  // namespace vc::operator_cli
