// plugin_module.cpp — loading a plugin file: file checks, export check, dlopen, entry call,
// descriptor validation. Every refusal is a value; nothing here throws to the caller.
#include "plugin_loader/plugin_module.h"

// Boost.DLL 1.74 headers use std::vector and std::string without including them when
// BOOST_DLL_USE_STD_FS is defined.
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <system_error>

#include "plugin_loader/descriptor_check.h"
#include "plugin_loader/elf_exports.h"
#include "plugin_loader/plugin_file_check.h"
#include "plugin_loader/plugin_mappings.h"
#include "plugin_loader/retain_forever.h"

#ifndef VC_HOST_VERSION
#define VC_HOST_VERSION "0.0.0"
#endif

namespace vc::plugins {

namespace fs = std::filesystem;
using SharedLibrary = boost::dll::shared_library;

struct PluginModule::Impl {
  std::shared_ptr<SharedLibrary> library;
  vc_plugin_descriptor descriptor{};
  PluginInfo info;
};

namespace {

constexpr const char* kHostName = "mcp-virtual-computer";

Failure missing_entry_symbol(const std::vector<std::string>& other_entries) {
  std::string reason = std::string("entry symbol ") + VC_ENTRY_SYMBOL + " missing";
  if (!other_entries.empty()) {
    // vc_plugin_entry_v2 and so on: a plugin for another ABI major.
    const std::string& other = other_entries.front();
    const std::string major = other.substr(std::string_view("vc_plugin_entry_v").size());
    reason += "; it exports " + other + " (built for backend ABI " + major +
              ", this host speaks ABI " + std::to_string(VC_ABI_MAJOR) + ")";
  } else {
    reason += " (is it a backend plugin built with the SDK?)";
  }
  return Failure{VC_E_INCOMPATIBLE, reason};
}

// The dlerror() text out of Boost.DLL's exception message, without the repeated file path.
std::string dlopen_error_text(const std::system_error& error, const fs::path& path) {
  std::string text = error.what();
  const std::string marker = "dlerror system message: ";
  const size_t start = text.find(marker);
  if (start != std::string::npos) {
    const size_t end = text.rfind(')');
    text = text.substr(start + marker.size(), end != std::string::npos && end > start
                                                  ? end - start - marker.size()
                                                  : std::string::npos);
  }
  const std::string path_prefix = path.string() + ": ";
  if (text.compare(0, path_prefix.size(), path_prefix) == 0) text.erase(0, path_prefix.size());
  return text;
}

Expected<std::shared_ptr<SharedLibrary>> open_library(const fs::path& path) {
  try {
    // rtld_now: a missing symbol fails here, not in the middle of an operation.
    // rtld_local: plugins may bundle different versions of the same libraries.
    // Never rtld_deepbind (sanitizers abort on it; hidden visibility isolates plugins instead).
    auto library = std::make_shared<SharedLibrary>(
        path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    // From here on the module's code may have run (static constructors): it stays mapped.
    retain_forever(library);
    record_plugin_mapping(library->native(), path);
    return library;
  } catch (const std::system_error& error) {
    return Failure{VC_E_FAILED, "dlopen failed: " + dlopen_error_text(error, path)};
  } catch (const std::exception& error) {
    return Failure{VC_E_FAILED, std::string("dlopen failed: ") + error.what()};
  }
}

Expected<vc_plugin_entry_fn> find_entry(SharedLibrary& library) {
  try {
    if (!library.has(VC_ENTRY_SYMBOL)) return missing_entry_symbol({});
    return &library.get<const vc_plugin_descriptor*(const vc_host_info*)>(VC_ENTRY_SYMBOL);
  } catch (const std::exception&) {
    return missing_entry_symbol({});
  }
}

Expected<const vc_plugin_descriptor*> call_entry(vc_plugin_entry_fn entry, const fs::path& path) {
  const std::string plugin_path = path.string();
  vc_host_info host_info{};
  host_info.struct_size = sizeof host_info;
  host_info.abi_major = VC_ABI_MAJOR;
  host_info.abi_minor = VC_ABI_MINOR;
  host_info.host_name = kHostName;
  host_info.host_version = VC_HOST_VERSION;
  host_info.plugin_path = plugin_path.c_str();
  const vc_plugin_descriptor* descriptor = nullptr;
  try {
    descriptor = entry(&host_info);
  } catch (...) {
    return Failure{VC_E_FAILED, "its entry function threw a C++ exception across the C ABI"};
  }
  if (descriptor == nullptr) {
    return Failure{VC_E_INCOMPATIBLE,
                   "the plugin refused to load in this host (its entry function returned NULL)"};
  }
  return descriptor;
}

}  // namespace

std::string plugin_refusal_message(const fs::path& path, const std::string& reason) {
  return "Cannot load backend plugin " + path.string() + ": " + reason;
}

Expected<std::shared_ptr<PluginModule>> load_plugin_file(const fs::path& absolute_path) {
  if (auto refusal = check_plugin_file(absolute_path)) return *refusal;

  // Read the export table before dlopen, so a file that is no plugin runs no code at all.
  auto exports = read_shared_object_exports(absolute_path);
  if (!exports) return exports.error();
  const std::vector<std::string>& entries = exports.value().entry_symbols;
  if (exports.value().symbol_table_read &&
      std::find(entries.begin(), entries.end(), VC_ENTRY_SYMBOL) == entries.end()) {
    return missing_entry_symbol(entries);
  }

  auto library = open_library(absolute_path);
  if (!library) return library.error();
  auto entry = find_entry(*library.value());
  if (!entry) return entry.error();
  auto descriptor = call_entry(entry.value(), absolute_path);
  if (!descriptor) return descriptor.error();
  auto checked = check_descriptor(descriptor.value(), absolute_path);
  if (!checked) return checked.error();
  name_plugin_mapping(absolute_path, checked.value().info.name);

  auto impl = std::make_unique<PluginModule::Impl>();
  impl->library = std::move(library).value();
  impl->descriptor = checked.value().descriptor;
  impl->info = std::move(checked).value().info;
  return std::make_shared<PluginModule>(std::move(impl));
}

Expected<std::shared_ptr<PluginModule>> PluginModule::load(const fs::path& path) {
  std::error_code error;
  fs::path absolute_path = fs::absolute(path, error).lexically_normal();
  if (error) absolute_path = path;
  auto module = load_plugin_file(absolute_path);
  if (!module) {
    return Failure{module.error().status,
                   plugin_refusal_message(absolute_path, module.error().message)};
  }
  return module;
}

PluginModule::PluginModule(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// The library itself was handed to retain_forever() when it was opened, so releasing this
// reference never unmaps plugin code.
PluginModule::~PluginModule() = default;

const PluginInfo& PluginModule::info() const { return impl_->info; }

const vc_plugin_descriptor& PluginModule::descriptor() const { return impl_->descriptor; }

}  // namespace vc::plugins
