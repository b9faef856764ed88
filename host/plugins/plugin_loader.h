// plugin_loader.h — the steps of loading one plugin file, for callers that want the bare reason
// of a refusal (the discovery listing prints it next to the path).
#pragma once

#include <filesystem>
#include <memory>

#include "common/failure.h"
#include "plugins/plugin_module.h"

namespace vc::plugins {

// [loop-thread] Loads `absolute_path` as PluginModule::load does; a refusal's message is only
// the reason ("not a shared object (not an ELF file)"), without the path.
Expected<std::shared_ptr<PluginModule>> load_plugin_file(
    const std::filesystem::path& absolute_path);

// "Cannot load backend plugin <path>: <reason>".
std::string plugin_refusal_message(const std::filesystem::path& path, const std::string& reason);

}  // namespace vc::plugins
