// process_ops.cpp — a process action is one backend op of the processes extension.
#include "computers/process_ops.h"

#include <utility>

#include "backend_proxy/backend.h"
#include "computers/acquired_op.h"

namespace vc::computers {
namespace {

backend_proxy::Operation operation_of(ProcessAction action) {
  switch (action) {
    case ProcessAction::start: return backend_proxy::Operation::start_process;
    case ProcessAction::read: return backend_proxy::Operation::read_process;
    case ProcessAction::write: return backend_proxy::Operation::write_process;
    case ProcessAction::kill: return backend_proxy::Operation::kill_process;
    case ProcessAction::list: break;
  }
  return backend_proxy::Operation::list_processes;
}

}  // namespace

const char* process_action_name(ProcessAction action) {
  switch (action) {
    case ProcessAction::start: return "process_start";
    case ProcessAction::read: return "process_read";
    case ProcessAction::write: return "process_write";
    case ProcessAction::kill: return "process_kill";
    case ProcessAction::list: break;
  }
  return "process_list";
}

bool processes_offered(const ComputerRegistry& registry) {
  return registry.backend() && registry.backend()->offers_processes();
}

CancelHandle run_process_action(ComputerRegistry& registry, ProcessAction action, Json request,
                                std::function<void(Expected<Json>)> done) {
  return run_on_acquired_computer(registry, operation_of(action), std::move(request),
                                  std::string(process_action_name(action)) + " call",
                                  std::move(done));
}

}  // namespace vc::computers
