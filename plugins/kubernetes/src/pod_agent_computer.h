// pod_agent_computer.h — a computer's pod as the agent channels reach it
// (vc_agent_channel/agent_process.h), through the API server's exec.
//
//  - start(): one exec in the pod's "computer" container, stdin attached, under a small sh
//    prologue that reports its PID on the first line of stderr (taken off here: the exec leads
//    its own process group, so a stuck agent's whole tree can be killed with a second exec),
//    changes to the working directory, and runs the program as the user asked for (runuser)
//    with the environment asked for (env). The API's exec has no user or environment of its
//    own.
//  - close(): the WebSocket is closed; the server closes the process's stdin, which ends both
//    agents. close(kill) also runs `kill -KILL -<pid>` in a second exec.
//  - install_exec_agent(): an exec of sh that reads exactly the program's length from stdin
//    (the 1.20 API cannot signal the end of stdin) into a temporary file beside the target,
//    makes it 0555 and renames it over the target.
//  - incarnation(): the pod's uid; target() says which pod the next start() goes to.
//
// Thread rule: the API thread (AgentTransport::clock's), like the channels.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <vc_agent_channel/agent_process.h>

#include "agent_transport.h"

namespace vc::kubernetes {

class PodAgentComputer final : public agent_channel::AgentComputer {
 public:
  PodAgentComputer(AgentTransport& transport, std::string computer_id);

  // The pod the next start() and install go to, and its uid (the incarnation).
  void target(std::string pod, std::string uid);
  // True once target() named a pod.
  bool has_target() const { return !pod_.empty(); }

  const std::string& computer_id() const override { return computer_id_; }
  std::string incarnation() const override { return uid_; }
  void start(const agent_channel::AgentLaunch& launch,
             const std::shared_ptr<agent_channel::CancelScope>& scope,
             agent_channel::AgentStreamEvents events,
             agent_channel::Callback<std::unique_ptr<agent_channel::AgentStream>> started) override;
  void install_exec_agent(std::string program,
                          const std::shared_ptr<agent_channel::CancelScope>& scope,
                          agent_channel::Callback<agent_channel::Done> done) override;

 private:
  AgentTransport& transport_;
  const std::string computer_id_;
  std::string pod_;
  std::string uid_;
};

// The argv start() runs `launch` with (exposed for tests).
std::vector<std::string> agent_launch_argv(const agent_channel::AgentLaunch& launch);

}  // namespace vc::kubernetes
