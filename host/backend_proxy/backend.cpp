// backend.cpp — creating a Backend from a loaded module, and the names of the operations.
#include "backend_proxy/backend.h"

#include "backend_proxy/host_services.h"
#include "backend_proxy/plugin_backend.h"
#include "backend_proxy/plugin_instance.h"

namespace vc::backend_proxy {

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::validate: return "validate";
    case Operation::ensure_image: return "ensure_image";
    case Operation::create: return "create";
    case Operation::attach: return "attach";
    case Operation::list: return "list";
    case Operation::restart: return "restart";
    case Operation::remove: return "remove";
    case Operation::factory_reset: return "factory_reset";
    case Operation::set_network_access: return "set_network_access";
    case Operation::get_desktop_environment: return "get_desktop_environment";
    case Operation::set_desktop_environment: return "set_desktop_environment";
    case Operation::exec: return "exec";
    case Operation::wait_for_death: return "wait_for_death";
    case Operation::tool_instructions: return "tool_instructions";
    case Operation::desktop_action: return "desktop_action";
    case Operation::create_checkpoint: return "create_checkpoint";
    case Operation::list_checkpoints: return "list_checkpoints";
    case Operation::restore_checkpoint: return "restore_checkpoint";
    case Operation::fork_checkpoint: return "fork_checkpoint";
    case Operation::delete_checkpoint: return "delete_checkpoint";
    case Operation::start_process: return "start_process";
    case Operation::read_process: return "read_process";
    case Operation::write_process: return "write_process";
    case Operation::kill_process: return "kill_process";
    case Operation::list_processes: return "list_processes";
  }
  return "unknown operation";
}

Expected<std::shared_ptr<Backend>> Backend::create(uv_loop_t* loop,
                                                   std::shared_ptr<plugins::PluginModule> module,
                                                   const Json& options,
                                                   const std::filesystem::path& state_dir) {
  if (loop == nullptr || module == nullptr) {
    return Failure{VC_E_INVALID_ARGUMENT, "Backend::create needs a loop and a loaded plugin."};
  }
  auto services = HostServices::create(module->info(), state_dir);
  if (!services) return services.error();
  auto instance = create_plugin_instance(*module, *services.value(), options);
  if (!instance) return instance.error();
  auto backend =
      PluginBackend::wrap(loop, std::move(module), std::move(services).value(), instance.value());
  if (!backend) return backend.error();
  return std::shared_ptr<Backend>(std::move(backend).value());
}

}  // namespace vc::backend_proxy
