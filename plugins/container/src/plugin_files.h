// plugin_files.h — the files a container plugin installs beside itself (the desktop image's
// build context, the exec agent), found from wherever the plugin was loaded. Any thread.
#pragma once

#include <filesystem>
#include <optional>

namespace vc::container {

// The folder holding the plugin file this code was loaded from (dladdr); nullopt when the
// loader cannot tell.
std::optional<std::filesystem::path> plugin_directory();

}  // namespace vc::container
