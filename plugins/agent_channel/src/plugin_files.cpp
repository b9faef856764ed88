// plugin_files.cpp — plugin_directory() through dladdr().
#include <vc_agent_channel/plugin_files.h>

#include <dlfcn.h>

#include <system_error>

namespace vc::agent_channel {
namespace {

// Any function of this module: dladdr() maps it to the plugin file that holds it.
void plugin_file_anchor() {}

}  // namespace

std::optional<std::filesystem::path> plugin_directory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_file_anchor), &info) == 0 ||
      info.dli_fname == nullptr) {
    return std::nullopt;
  }
  std::error_code error;
  auto file = std::filesystem::canonical(info.dli_fname, error);
  if (error) return std::nullopt;
  return file.parent_path();
}

}  // namespace vc::agent_channel
