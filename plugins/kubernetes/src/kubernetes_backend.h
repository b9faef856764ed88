// kubernetes_backend.h — one backend instance: the vc_backend handed to the host, each
// operation run as blocking work on a lane.
//
// Threading. Op functions, cancel() and destroy() are called on the host's loop thread and
// never block: the SDK's op table has checked the request; each op function accepts the op and
// posts its flow to a lane of WorkLanes (the SDK's plugin threads): one lane per computer, so a
// computer's operations and commands run one at a time in call order, different computers in
// parallel; validate and list on a lane of their own; each wait_for_death on its own lane, so a
// watch never holds up the computer's commands; desktop actions on a lane of the computer's
// desktop, so that a click does not wait for a command to end. Flows block on ClusterCalls, whose transport
// runs on the plugin's API thread. cancel() cancels the op's CancelScope, which aborts the call
// in flight.
//
// The connection to the cluster is made on first use, on a lane (reading the kubeconfig and
// running an exec credential plugin are blocking): create_backend() does no I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/backend_ops.h>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/cpp/lane_ops.h>
#include <vc-backend-1/cpp/op_registry.h>
#include <vc-backend-1/cpp/work_lanes.h>

#include "api_endpoint.h"
#include "cluster_calls.h"
#include "computer_flows.h"
#include "desktop_views.h"
#include "kubernetes_options.h"
#include "pod_agents.h"

namespace vc::kubernetes {

// Makes the connection the backend uses (api_cluster_calls.h); a failure is a sentence naming
// the kubeconfig and what is wrong in it. [lane thread], may block.
using ClusterCallsFactory =
    std::function<ConfigExpected<std::unique_ptr<ClusterCalls>>(const KubernetesOptions&)>;

class KubernetesBackend {
 public:
  // [host loop] create_backend(): parses the options (no I/O).
  static vc_status open(const vc_host_services* host, std::string_view config_json,
                        ClusterCallsFactory connect, vc_backend** out_backend,
                        std::string& error);

  const sdk::HostLog& log() const { return log_; }
  void cancel(const vc_op* op) { registry_.cancel(op); }
  void destroy();

  vc_status validate(sdk::ValidateRequest request, const vc_op* op);
  vc_status create_computer(sdk::CreateRequest request, const vc_op* op);
  vc_status attach(sdk::AttachRequest request, const vc_op* op);
  vc_status list(sdk::ListRequest request, const vc_op* op);
  vc_status restart(sdk::ComputerRequest request, const vc_op* op);
  vc_status remove(sdk::ComputerRequest request, const vc_op* op);
  vc_status factory_reset(sdk::ComputerRequest request, const vc_op* op);
  vc_status set_network_access(sdk::ToggleRequest request, const vc_op* op);
  vc_status exec(sdk::ExecRequest request, std::string_view stdin_bytes, const vc_op* op);
  vc_status wait_for_death(sdk::ComputerRequest request, const vc_op* op);
  vc_status tool_instructions(sdk::ToolInstructionsRequest request, const vc_op* op);
  vc_status get_desktop_environment(sdk::ComputerRequest request, const vc_op* op);
  vc_status set_desktop_environment(sdk::ToggleRequest request, const vc_op* op);
  // The desktop-control extension's one operation (ext/vc_backend_desktop_control.h), on a
  // lane of the computer's desktop: actions never wait behind a long command.
  vc_status desktop_action(sdk::DesktopActionRequest request, const vc_op* op);

 private:
  KubernetesBackend(const vc_host_services* host, KubernetesOptions options,
                    ClusterCallsFactory connect);
  ~KubernetesBackend();

  // The flows, with the connection made on first use. [lane thread]
  sdk::Expected<ComputerFlows*, sdk::OpFailure> flows();
  // Runs `work` with the flows on `lane`.
  vc_status run(const vc_op* op, const std::string& lane,
                std::function<sdk::OpResult(ComputerFlows&, const sdk::Pending&,
                                            sdk::CancelScope&)> work);
  // Marks a stop this backend asks for, so that wait_for_death does not report it.
  class OwnStop;
  sdk::OpResult watch_for_death(const std::string& computer_id,
                                sdk::CancelScope& scope);
  // True while a stop of ours runs, or when one began after `since` (a generation).
  bool stopped_by_us(const std::string& computer_id, std::uint64_t since);
  std::uint64_t stop_generation(const std::string& computer_id);
  void remember_shell(const std::string& computer_id, const std::string& shell,
                      const std::string& workspace);
  // The computer's pod is about to go: its agents' channels end. [lane thread]
  void forget_agents(const std::string& computer_id, const char* why);
  // A command through the exec agent, or nullopt for one exec through the API. [lane thread]
  std::optional<sdk::OpResult> run_command_by_agent(ComputerFlows& flows,
                                                    const sdk::Pending& pending,
                                                    const sdk::ExecRequest& request,
                                                    const std::string& input,
                                                    const std::string& shell,
                                                    sdk::CancelScope& scope);

  vc_backend handle_;
  sdk::HostLog log_;
  const KubernetesOptions options_;
  ClusterCallsFactory connect_;
  sdk::OpRegistry registry_;
  sdk::WorkLanes lanes_;

  std::mutex connection_mutex_;
  std::unique_ptr<ClusterCalls> calls_;     // guarded by connection_mutex_ until made
  std::unique_ptr<ComputerFlows> flows_;
  std::unique_ptr<PodAgents> agents_;       // with calls_, when the cluster has agent streams
  std::unique_ptr<DesktopViews> views_;     // with calls_

  std::mutex computers_mutex_;
  std::map<std::string, int> own_stops_;                // in progress
  std::map<std::string, std::uint64_t> stop_generations_;  // stops begun, per computer
  std::set<std::string> removed_;                       // removed by this backend
  std::map<std::string, std::pair<std::string, std::string>> shells_;   // shell, workspace
};

}  // namespace vc::kubernetes
