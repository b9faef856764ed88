// plugin_mappings.cpp — see plugin_mappings.h.
#include "plugin_loader/plugin_mappings.h"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace vc::plugins {
namespace {

// Paths longer than this are cut in the report; a module has two to five PT_LOAD segments.
constexpr size_t kPathCapacity = 1024;
constexpr size_t kNameCapacity = 128;
constexpr size_t kMaxSegments = 16;

struct Segment {
  uintptr_t start = 0;
  uintptr_t end = 0;  // one past the last byte
};

// Written once by the loop thread before it is published through g_published; its name is
// written once before `named` is set. Signal handlers only read what is published.
struct RecordedModule {
  uintptr_t base = 0;
  char path[kPathCapacity] = {};
  char name[kNameCapacity] = {};
  Segment segments[kMaxSegments] = {};
  size_t segment_count = 0;
  std::atomic<bool> named{false};
};

RecordedModule g_modules[kMaxMappedPlugins];
std::atomic<size_t> g_published{0};

static_assert(std::atomic<size_t>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "signal handlers read these: they must not take a lock");

void copy_bounded(char* out, size_t capacity, const std::string& text) {
  const size_t length = std::min(text.size(), capacity - 1);
  std::memcpy(out, text.data(), length);
  out[length] = '\0';
}

struct SegmentSearch {
  uintptr_t base = 0;
  const char* name = nullptr;
  RecordedModule* module = nullptr;
};

int collect_segments(dl_phdr_info* info, size_t /*size*/, void* data) {
  auto* search = static_cast<SegmentSearch*>(data);
  if (info->dlpi_addr != search->base || info->dlpi_name == nullptr ||
      std::strcmp(info->dlpi_name, search->name) != 0) {
    return 0;  // another module: keep looking
  }
  RecordedModule& module = *search->module;
  for (ElfW(Half) index = 0; index < info->dlpi_phnum; ++index) {
    const ElfW(Phdr)& header = info->dlpi_phdr[index];
    if (header.p_type != PT_LOAD || module.segment_count == kMaxSegments) continue;
    const uintptr_t start = info->dlpi_addr + header.p_vaddr;
    module.segments[module.segment_count++] = Segment{start, start + header.p_memsz};
  }
  return 1;
}

}  // namespace

void record_plugin_mapping(void* dl_handle, const std::filesystem::path& path) {
  link_map* map = nullptr;
  if (dl_handle == nullptr || dlinfo(dl_handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) {
    return;
  }
  const size_t published = g_published.load(std::memory_order_relaxed);
  for (size_t index = 0; index < published; ++index) {
    if (g_modules[index].base == map->l_addr) return;
  }
  if (published == kMaxMappedPlugins) return;

  RecordedModule& module = g_modules[published];
  module.base = map->l_addr;
  copy_bounded(module.path, sizeof module.path, path.string());
  SegmentSearch search{map->l_addr, map->l_name, &module};
  dl_iterate_phdr(&collect_segments, &search);
  g_published.store(published + 1, std::memory_order_release);
}

void name_plugin_mapping(const std::filesystem::path& path, const std::string& name) {
  char wanted[kPathCapacity];
  copy_bounded(wanted, sizeof wanted, path.string());
  const size_t published = g_published.load(std::memory_order_relaxed);
  for (size_t index = 0; index < published; ++index) {
    RecordedModule& module = g_modules[index];
    if (std::strcmp(module.path, wanted) != 0 || module.named.load(std::memory_order_relaxed)) {
      continue;
    }
    copy_bounded(module.name, sizeof module.name, name);
    module.named.store(true, std::memory_order_release);
  }
}

bool find_mapped_plugin(uintptr_t address, MappedPlugin& found) {
  const size_t published = g_published.load(std::memory_order_acquire);
  for (size_t index = 0; index < published; ++index) {
    const RecordedModule& module = g_modules[index];
    for (size_t segment = 0; segment < module.segment_count; ++segment) {
      if (address < module.segments[segment].start || address >= module.segments[segment].end) {
        continue;
      }
      found.path = module.path;
      found.name = module.named.load(std::memory_order_acquire) ? module.name : "";
      return true;
    }
  }
  return false;
}

}  // namespace vc::plugins
