// process_call.h — one operation of the processes extension (ext/vc_backend_processes.h) run in
// a computer: `vc-exec-agent process-call` through the computer's exec agent, as an ordinary
// command, with the request on its stdin and the answer on its stdout (docs/processes.md, "The
// supervisor's protocol"). Engine-neutral: the container plugins and the Kubernetes plugin
// give it their channel and their CommandEnding.
//
//   extension request (typed, checked by the SDK) -> agent request {"protocol":1,"op",...}
//   -> process-call's answer -> the extension's result, or a failure:
//      {"error":{"code":"not_found"}}         VC_E_NOT_FOUND
//      invalid_argument                        VC_E_INVALID_ARGUMENT
//      process_limit, stdin_closed, input_backlog  VC_E_FAILED, details "<engine>.<code>"
//      anything else                           VC_E_FAILED with the supervisor's sentence
//
// Thread rule: the channel's thread (channel_clock.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/cpp/requests.h>

#include "agent_exec_session.h"
#include "channel_clock.h"
#include "exec_agent_channel.h"
#include "running_command.h"

namespace vc::agent_channel {

// The agent requests of the five operations. `shell` runs a start request's command line.
nlohmann::json agent_start_request(const sdk::ProcessStartRequest& request, const std::string& shell);
nlohmann::json agent_read_request(const sdk::ProcessReadRequest& request);
nlohmann::json agent_write_request(const sdk::ProcessWriteRequest& request);
nlohmann::json agent_kill_request(const sdk::ProcessKillRequest& request);
nlohmann::json agent_list_request();

// Makes the engine's CommandEnding for the computer: one for the call's command session (the
// death check), one for the failures read from the supervisor's answer (their details codes).
using CommandEndingFactory = std::function<std::unique_ptr<CommandEnding>()>;

// Runs `agent_request` in the computer of `computer_id` through the open `channel`; `done`
// runs exactly once with the extension's result (list results gain "computer_id"). The
// returned command is started; cancel() stops the call (not the process it is about).
std::shared_ptr<RunningCommand> run_process_call(ChannelClock& clock, sdk::HostLog log,
                                                 std::shared_ptr<ExecAgentChannel> channel,
                                                 const CommandEndingFactory& ending,
                                                 const std::string& computer_id,
                                                 nlohmann::json agent_request,
                                                 Callback<nlohmann::json> done);

}  // namespace vc::agent_channel
