// plugin_files.h — the files a plugin installs beside itself for the agents (the exec agent's
// program, the desktop image's build context), found from wherever the plugin was loaded.
// Any thread.
#pragma once

#include <filesystem>
#include <optional>

namespace vc::agent_channel {

// The folder holding the plugin file this code was loaded from (dladdr); nullopt when the
// loader cannot tell.
std::optional<std::filesystem::path> plugin_directory();

}  // namespace vc::agent_channel
