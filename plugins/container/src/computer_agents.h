// computer_agents.h — a container as the agent channels reach it
// (vc_agent_channel/agent_process.h): processes started with the Engine API's exec, stdin,
// stdout and stderr attached; the exec agent copied in with the archive API; a stuck agent's
// process group killed from the host or inside the container (process_group_kill.h); a
// command's failure concluded by the death check (exec_conclusion.h).
//
// And the channels of one computer, made on first use and kept in its record.
//
// EngineLoop thread only.
#pragma once

#include <memory>

#include <vc_agent_channel/agent_exec_session.h>
#include <vc_agent_channel/agent_process.h>
#include <vc_agent_channel/desktop_channel.h>
#include <vc_agent_channel/exec_agent_channel.h>

#include "container_calls.h"

namespace vc::container {

// The computer of `record`, as the channels see it.
std::shared_ptr<agent_channel::AgentComputer> agent_computer_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record);

// The record's exec agent channel, made on first use.
std::shared_ptr<agent_channel::ExecAgentChannel> exec_agent_channel_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record);

// The record's desktop agent channel, made on first use.
std::shared_ptr<agent_channel::DesktopChannel> desktop_channel_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record);

// How a command that ran through the exec agent ends in this computer: the death check.
std::unique_ptr<agent_channel::CommandEnding> command_ending_of(
    BackendContext& ctx, const std::shared_ptr<ComputerRecord>& record);

}  // namespace vc::container
