// pod_agents.h — the in-computer agents of every computer of one backend: a computer's exec
// agent channel (and, with a desktop, its desktop agent channel), kept on the API thread.
//
// Commands through the exec agent (docs/kubernetes-backend.md): one long-lived exec per
// computer instead of one exec per command. run_command() is called on the computer's lane and
// blocks until the command ends:
//   - the channel is open: the command starts at once (no API call but the frames);
//   - it is not: `find_pod` (a blocking GET on the lane) names the running pod, and the channel
//     opens on it — copying the agent in on the pod's first use;
//   - the agent cannot run in the pod (a read-only root, no sh): nullopt with --exec-agent auto
//     (the caller runs the command through the API's exec, one exec per command), the reason
//     with --exec-agent on.
// A restart, reset or removal forgets the computer's channels (forget()): the next command
// opens a new agent in the new pod.
//
// Desktop actions (desktop_action()) go to the computer's desktop agent channel
// (vc_agent_channel/desktop_channel.h), on the same pod: the pod is looked up only when the
// computer's channels have none yet; the channel starts its agent itself on the first action.
//
// Thread rule: run_command() and desktop_action() on a lane thread (they block; never the API
// thread); forget() from any thread; shutdown() once, on the owner's thread, before the
// transport stops.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/cpp/op_result.h>
#include <vc-backend-1/cpp/requests.h>
#include <vc_agent_channel/exec_output.h>

#include "agent_transport.h"
#include "kubernetes_options.h"
#include "pod_status.h"

namespace vc::kubernetes {

class PodAgentComputer;

// The failure code of a command whose agent line ended under it (see run_command()).
inline constexpr const char* kExecStreamLostCode = "kubernetes.exec_stream_lost";

class PodAgents {
 public:
  PodAgents(AgentTransport& transport, sdk::HostLog log, ExecAgentMode mode,
            std::string agent_binary);
  ~PodAgents();

  PodAgents(const PodAgents&) = delete;
  PodAgents& operator=(const PodAgents&) = delete;

  using FindPod = std::function<sdk::Expected<PodView, sdk::OpFailure>()>;

  // [lane] Runs `request` through the computer's exec agent; see above. `emit` is called on
  // the API thread and must not block (VC_E_BACKPRESSURE holds the output). A result with the
  // failure code kExecStreamLostCode means the agent's stream ended under the
  // command: the caller looks whether the computer died.
  std::optional<sdk::OpResult> run_command(const std::string& computer_id, const FindPod& find_pod,
                                           const std::string& shell, sdk::ExecRequest request,
                                           std::string stdin_bytes,
                                           agent_channel::ExecOutput::Emit emit,
                                           sdk::CancelScope& scope);

  // [lane] Sends `action` ({"action",...}) to the computer's desktop agent and waits for its
  // result (at most `deadline`, then the agent is restarted). A cancel withdraws the request:
  // the op ends at once, what the agent already did stays done.
  sdk::OpResult desktop_action(const std::string& computer_id, const FindPod& find_pod,
                               nlohmann::json action, std::chrono::milliseconds deadline,
                               sdk::CancelScope& scope);

  // [any-thread] The computer's pod is going away: its channels end (commands in flight are
  // lost) and the next command opens new ones.
  void forget(const std::string& computer_id, const std::string& why);

  // [owner] Ends every channel on the API thread and waits until that is done.
  void shutdown();

 private:
  struct Computer;
  struct Run;

  // [API thread]
  Computer& computer(const std::string& computer_id);
  void start_session(Computer& computer, const std::shared_ptr<Run>& run);
  void open_and_start(Computer& computer, const std::shared_ptr<Run>& run);

  AgentTransport& transport_;
  const sdk::HostLog log_;
  const ExecAgentMode mode_;
  const std::string agent_binary_;
  std::map<std::string, std::unique_ptr<Computer>> computers_;  // [API thread]
};

}  // namespace vc::kubernetes
