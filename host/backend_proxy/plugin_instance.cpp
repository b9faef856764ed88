// plugin_instance.cpp — see plugin_instance.h. [loop-thread]
#include "backend_proxy/plugin_instance.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "plugin_loader/retain_forever.h"
#include "plugin_loader/versioned_struct.h"
#include "backend_proxy/status_text.h"

namespace vc::backend_proxy {

namespace {

constexpr size_t kInstanceMinSize = offsetof(vc_backend, ops) + sizeof(vc_backend::ops);
constexpr size_t kOpsMinSize = offsetof(vc_backend_ops, destroy) + sizeof(vc_backend_ops::destroy);

Failure failed_to_start(const plugins::PluginInfo& plugin, vc_status status, const std::string& why) {
  return Failure{normalise_status(status),
                 "The " + plugin.name + " backend failed to start: " + why};
}

// An instance the host cannot use or cannot destroy is kept, not freed: its owner is the
// plugin, and without a usable destroy() there is no safe way to release it.
Failure unusable_instance(const plugins::PluginInfo& plugin, vc_backend* backend, const std::string& why) {
  plugins::retain_forever(std::make_shared<vc_backend*>(backend));
  return failed_to_start(plugin, VC_E_INCOMPATIBLE, why);
}

// A plugin's extension table may be older (smaller) than ours: copy what it has; the rest stays
// NULL. A plugin whose get_extension throws or returns garbage sizes offers no extension.
void read_desktop_control(PluginInstance& instance) {
  if (instance.ops.get_extension == nullptr) return;
  const void* raw = nullptr;
  try {
    raw = instance.ops.get_extension(instance.backend, VC_EXT_BACKEND_DESKTOP_CONTROL);
  } catch (...) {
    return;
  }
  if (raw == nullptr) return;
  const auto* table = static_cast<const vc_backend_desktop_control*>(raw);
  constexpr size_t kMinSize = offsetof(vc_backend_desktop_control, desktop_action) +
                              sizeof(vc_async_op_fn);
  if (table->struct_size < kMinSize) return;
  plugins::copy_versioned(&instance.desktop_control, table);
}

// Extensions that arrive whole (checkpoints with ABI 1.2, processes with 1.3): a table that
// does not cover every operation is not one the host can use (validate-plugin says so). A NULL
// slot of a usable table is answered VC_E_UNSUPPORTED, as any NULL slot. `slots` lists the
// copied table's operations.
template <class Table, std::size_t N>
void read_whole_extension(PluginInstance& instance, const char* id, Table& copy,
                          ExtensionOffer& offer, std::size_t min_size,
                          std::pair<vc_async_op_fn Table::*, Operation> const (&slots)[N]) {
  if (instance.ops.get_extension == nullptr) return;
  const void* raw = nullptr;
  try {
    raw = instance.ops.get_extension(instance.backend, id);
  } catch (...) {
    return;
  }
  if (raw == nullptr) return;
  const auto* table = static_cast<const Table*>(raw);
  offer.returned = true;
  offer.struct_size = table->struct_size;
  if (table->struct_size < min_size) return;
  plugins::copy_versioned(&copy, table);
  offer.usable = true;
  for (const auto& [slot, operation] : slots) {
    if (copy.*slot == nullptr) offer.null_slots.push_back(operation);
  }
}

void read_checkpoints(PluginInstance& instance) {
  using T = vc_backend_checkpoints;
  static constexpr std::pair<vc_async_op_fn T::*, Operation> kSlots[] = {
      {&T::create_checkpoint, Operation::create_checkpoint},
      {&T::list_checkpoints, Operation::list_checkpoints},
      {&T::restore_checkpoint, Operation::restore_checkpoint},
      {&T::fork_checkpoint, Operation::fork_checkpoint},
      {&T::delete_checkpoint, Operation::delete_checkpoint}};
  read_whole_extension(instance, VC_EXT_BACKEND_CHECKPOINTS, instance.checkpoints,
                       instance.checkpoints_offer,
                       offsetof(T, delete_checkpoint) + sizeof(vc_async_op_fn), kSlots);
}

void read_processes(PluginInstance& instance) {
  using T = vc_backend_processes;
  static constexpr std::pair<vc_async_op_fn T::*, Operation> kSlots[] = {
      {&T::start_process, Operation::start_process},
      {&T::read_process, Operation::read_process},
      {&T::write_process, Operation::write_process},
      {&T::kill_process, Operation::kill_process},
      {&T::list_processes, Operation::list_processes}};
  read_whole_extension(instance, VC_EXT_BACKEND_PROCESSES, instance.processes,
                       instance.processes_offer,
                       offsetof(T, list_processes) + sizeof(vc_async_op_fn), kSlots);
}

}  // namespace

Json make_backend_config(const Json& options) {
  Json config = Json::object();
  config["options"] = options.is_null() ? Json::object() : options;
  return config;
}

Expected<PluginInstance> create_plugin_instance(const plugins::PluginModule& module,
                                                const HostServices& services, const Json& options) {
  const plugins::PluginInfo& plugin = module.info();
  const std::string config =
      make_backend_config(options).dump(-1, ' ', false, Json::error_handler_t::replace);
  char errbuf[kCreateErrorBufferSize] = {};
  vc_backend* backend = nullptr;
  vc_status status = VC_E_FAILED;
  try {
    status = module.descriptor().create_backend(services.table(), config.data(), config.size(),
                                                &backend, errbuf, sizeof errbuf);
  } catch (...) {
    return failed_to_start(plugin, VC_E_FAILED, "create_backend threw a C++ exception");
  }
  errbuf[sizeof errbuf - 1] = '\0';
  const std::string message(errbuf, ::strnlen(errbuf, sizeof errbuf));

  if (status < 0) {
    return failed_to_start(plugin, status,
                           message.empty()
                               ? std::string("no reason given (status ") + std::to_string(status) +
                                     ", " + status_name(status) + ")"
                               : message);
  }
  if (backend == nullptr) {
    return failed_to_start(plugin, VC_E_FAILED,
                           "create_backend reported success but returned no instance");
  }
  if (backend->struct_size < kInstanceMinSize) {
    return unusable_instance(plugin, backend,
                             "its instance struct is too small (struct_size " +
                                 std::to_string(backend->struct_size) + ")");
  }
  const vc_backend_ops* raw_ops = backend->ops;
  if (raw_ops == nullptr || raw_ops->struct_size < kOpsMinSize) {
    return unusable_instance(plugin, backend, "its instance has no usable operations table");
  }
  PluginInstance instance;
  instance.backend = backend;
  plugins::copy_versioned(&instance.ops, raw_ops);
  if (instance.ops.destroy == nullptr) {
    return unusable_instance(plugin, backend, "its operations table has no destroy function");
  }
  read_desktop_control(instance);
  read_checkpoints(instance);
  read_processes(instance);
  return instance;
}

}  // namespace vc::backend_proxy
