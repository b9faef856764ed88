// plugin_module.h — one loaded backend plugin file (.so) and its validated descriptor.
//
// Loading never crashes the host: every refusal is an error value with a one-line message
// naming the file and the reason ("not a shared object", "entry symbol vc_plugin_entry_v1
// missing", "wrong magic", "ABI major 2, host speaks 1", "needs host ABI minor >= 3, host is
// 1.0", ...). Modules are never unloaded in production (see docs/architecture.md).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <vc-backend-1/vc_sdk.h>

#include "common/failure.h"

namespace vc::plugins {

// A declared plugin option, copied out of the module (owned strings).
struct OptionDecl {
  vc_option_type type = VC_OPTION_STRING;
  std::string name;
  std::string help;
  std::optional<std::string> default_value;
  std::optional<std::string> env_var;
};

// What `mcp-virtual-computer plugins` prints for one plugin, copied out of the descriptor.
struct PluginInfo {
  std::string id;
  std::string name;
  std::string version;
  std::string vendor;
  std::string description;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  vc_caps capabilities = 0;
  std::vector<OptionDecl> options;
  std::filesystem::path path;
};

// Names of the capability bits set in `caps`, e.g. {"persistent", "restart"}.
std::vector<std::string> capability_names(vc_caps caps);

class PluginModule {
 public:
  // Loads and validates `path` (absolute or relative; made absolute). Runs the entry function
  // but nothing else of the plugin.
  static Expected<std::shared_ptr<PluginModule>> load(const std::filesystem::path& path);

  const PluginInfo& info() const;
  // The normalised copy of the descriptor (zero-filled past the plugin's struct_size).
  const vc_plugin_descriptor& descriptor() const;

  ~PluginModule();
  PluginModule(const PluginModule&) = delete;
  PluginModule& operator=(const PluginModule&) = delete;

  struct Impl;
  explicit PluginModule(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace vc::plugins
