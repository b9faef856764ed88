// command_dispatch.h — which path runs a command, as --exec-agent says (docs/exec-agent.md):
// the computer's exec agent (AgentExecSession), or the engine's own exec (ExecSession), to
// which `auto` falls back where the agent cannot run. The exec op and the lifecycle's readiness
// check both go this way.
//
// EngineLoop thread only.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "container_calls.h"
#include <vc-backend-1/cpp/requests.h>
#include <vc_agent_channel/exec_output.h>
#include <vc_agent_channel/running_command.h>
#include "helper_exec.h"

namespace vc::container {

using agent_channel::ExecOutput;
using agent_channel::RunningCommand;

// Runs `request` in the computer of `record`. `started` receives the command once it runs
// (for cancels); `cancelled` is asked before it starts, after the agent was opened. `done`
// runs exactly once.
void run_command(BackendContext& ctx, std::shared_ptr<ComputerRecord> record, sdk::ExecRequest request,
                 std::string stdin_bytes, ExecOutput::Emit emit, Callback<nlohmann::json> done,
                 std::function<bool()> cancelled,
                 std::function<void(std::shared_ptr<RunningCommand>)> started);

// A short command of the plugin's own (the readiness check), by the same path, its output
// collected (at most 64 KiB a stream). A command the plugin gives up on is VC_E_TIMEOUT.
void run_probe_command(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                       std::vector<std::string> argv, std::chrono::milliseconds timeout,
                       Callback<HelperExecResult> done);

}  // namespace vc::container
