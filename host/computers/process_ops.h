// process_ops.h — the processes the server's computer holds (docs/processes.md): start, read,
// write, kill and list, through the backend's processes extension (ext/vc_backend_processes.h).
//
// Each acquires the computer if needed (as a command does), then runs one backend op with
// `request` plus {"computer_id"}; the request is the extension's document (the tools check
// every field first). The backend's result, or its failure with its message unchanged, reaches
// `done`. A backend without the extension fails with VC_E_UNSUPPORTED; offered() says so
// before anything runs.
//
// [loop-thread]; `done` runs exactly once, on a later loop turn. Cancelling stops waiting (a
// process already started goes on; input already written stays written).
#pragma once

#include <functional>

#include "common/cancellable.h"
#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_registry.h"

namespace vc::computers {

enum class ProcessAction { start, read, write, kill, list };

// "process_start", ... : the tool (and activity) name of an action.
const char* process_action_name(ProcessAction action);

// Whether the server's backend offers processes at all.
bool processes_offered(const ComputerRegistry& registry);

CancelHandle run_process_action(ComputerRegistry& registry, ProcessAction action, Json request,
                                std::function<void(Expected<Json>)> done);

}  // namespace vc::computers
