// process_calls.h — the processes extension (ext/vc_backend_processes.h) on Docker and Podman:
// each operation is one `vc-exec-agent process-call` through the computer's exec agent
// (vc_agent_channel/process_call.h; docs/processes.md). The processes live under the
// supervisor inside the container, so they outlive the plugin's channel and the server; a
// restart of the container ends them.
//
// Process calls do not wait in the computer's exec lane: a process_read that waits for output
// must not hold up a command, nor a command a read. They need the exec agent: with
// --exec-agent off, or where the agent cannot run, they fail with VC_E_UNSUPPORTED and why.
//
// EngineLoop thread only.
#pragma once

#include <functional>
#include <memory>

#include <nlohmann/json.hpp>
#include <vc_agent_channel/running_command.h>

#include "container_calls.h"

namespace vc::container {

// Runs `agent_request` (process_call.h's agent_*_request) in the computer of `record`. `started`
// receives the call once it runs (for cancels); `cancelled` is asked after the agent was opened.
// `done` runs exactly once.
void run_process_call(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                      nlohmann::json agent_request, Callback<nlohmann::json> done,
                      std::function<bool()> cancelled,
                      std::function<void(std::shared_ptr<agent_channel::RunningCommand>)> started);

}  // namespace vc::container
