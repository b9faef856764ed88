// running_command.h — a command under way in a computer, whichever path runs it (the engine's
// exec: ExecSession; the exec agent: AgentExecSession). What the exec op needs of it.
//
// Thread rule: the thread the plugin runs commands on (the channel's, for AgentExecSession).
#pragma once

namespace vc::agent_channel {

class RunningCommand {
 public:
  virtual ~RunningCommand() = default;
  // Starts the command; the session keeps itself alive until its done callback has run.
  virtual void start() = 0;
  // Stops the command (its whole process group) and completes with VC_E_CANCELLED, unless it
  // had already finished.
  virtual void cancel() = 0;
};

}  // namespace vc::agent_channel
