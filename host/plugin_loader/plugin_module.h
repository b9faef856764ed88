// plugin_module.h — one loaded backend plugin file (.so) and its validated descriptor.
//
// Loading never crashes the host: every refusal is an error value with a one-line message
// naming the file and the reason, e.g. "Cannot load backend plugin /x/vc-backend-y.so: not a
// shared object (not an ELF file)"; other reasons: "entry symbol vc_plugin_entry_v1 missing",
// "wrong magic in its descriptor (expected 0x31424356, found 0x...)", "built for backend ABI 2,
// this host speaks ABI 1", "needs host ABI 1.3 or newer; this host is 1.0 — upgrade
// mcp-virtual-computer", "dlopen failed: <dynamic linker's reason>". Modules are never unloaded
// in production (see docs/architecture.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
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

class PluginModule {
 public:
  // Loads and validates `path` (absolute or relative; made absolute). Runs the entry function
  // but nothing else of the plugin. A refusal's message is one line:
  // "Cannot load backend plugin <path>: <reason>". [loop-thread] (loading is not concurrent)
  static Expected<std::shared_ptr<PluginModule>> load(const std::filesystem::path& path);

  const PluginInfo& info() const;
  // The normalised copy of the descriptor (zero-filled past the plugin's struct_size).
  const vc_plugin_descriptor& descriptor() const;

  // Keeps the shared object mapped (see retain_forever.h): production hosts never unload.
  ~PluginModule();
  PluginModule(const PluginModule&) = delete;
  PluginModule& operator=(const PluginModule&) = delete;

  struct Impl;
  explicit PluginModule(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// [loop-thread] Loads `absolute_path` as PluginModule::load does; a refusal's message is only
// the reason ("not a shared object (not an ELF file)"), without the path. For callers that
// print the reason next to the path (the discovery listing).
Expected<std::shared_ptr<PluginModule>> load_plugin_file(
    const std::filesystem::path& absolute_path);

// [any-thread] "Cannot load backend plugin <path>: <reason>".
std::string plugin_refusal_message(const std::filesystem::path& path, const std::string& reason);

}  // namespace vc::plugins
