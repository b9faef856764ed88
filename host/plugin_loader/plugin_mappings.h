// plugin_mappings.h — where each loaded plugin's code lies in memory, for the fatal-signal report.
//
// A plugin runs inside the host's process, so a crash in its code ends the host, and the report
// of that crash should say whose code it was. A signal handler may neither allocate nor lock:
// each module's PT_LOAD segments are recorded at load time into a fixed-size table that the
// handler only reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

namespace vc::plugins {

// More modules than this (only `mcp-virtual-computer plugins` loads several) go unrecorded.
inline constexpr size_t kMaxMappedPlugins = 32;

// [loop-thread] Records the segments of the module `dl_handle` (a dlopen handle) was opened
// from, under `path`. A module already recorded is left as it is.
void record_plugin_mapping(void* dl_handle, const std::filesystem::path& path);

// [loop-thread] The backend name to report for the module recorded under `path`, once its
// descriptor has been read. The first name given stays.
void name_plugin_mapping(const std::filesystem::path& path, const std::string& name);

struct MappedPlugin {
  const char* name = "";  // "" while the module's descriptor has not been read
  const char* path = "";
};

// [async-signal-safe] The recorded module one of whose segments holds `address`, if any. The
// strings stay valid for the life of the process.
bool find_mapped_plugin(uintptr_t address, MappedPlugin& found);

}  // namespace vc::plugins
