// computer_flows.h — the lifecycle of computers on a cluster, as blocking flows.
//
// One flow per backend operation: create, attach, list, restart, factory reset, remove and the
// network switch. Each reads top to bottom over ClusterCalls and ends in the OpResult the op
// completes with. How a computer maps onto objects (computer_objects.h):
//   create         the claim, the network-off policy when asked, the pod; waits until both of
//                  the pod's containers run, reporting at once why a pod cannot start (the
//                  scheduler's or the kubelet's words); a failed create removes what it made;
//   attach         finds the pod by name; a pod that is gone but whose claim is left is made
//                  again on the claim; a failed pod is replaced; then the network state asked;
//   restart        deletes the pod and makes it again from its own spec, on the same claim
//                  (/workspace and the home directories survive, the rest of the filesystem is
//                  the image's again);
//   factory reset  deletes the pod and the claim and makes both again (seeded from the image);
//   remove         deletes pod, claim and policy and waits until they are gone, so the name can
//                  be used again at once;
//   desktop        Xfce read and switched in place by the image's supervisor (desktop_mode.h);
//                  every pod of a desktop computer that starts is waited for until its desktop
//                  is live (15 s at most; a desktop that is not is logged, the computer is
//                  still handed over); the URL of its view comes from DesktopViews;
//   network        off: the deny-all-egress NetworkPolicy (enforced where the cluster's network
//                  plugin enforces policies) and the egress firewall applied by the pod's
//                  network-guard container (enforced everywhere); on: both undone. The policy's
//                  existence is the record of the wanted state, applied again after a restart.
//
// Thread rule: any thread but the API loop's (a lane thread); one object serves all lanes; the
// flows of one computer must not overlap (the backend runs them on the computer's lane).
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc-backend-1/cpp/computer_info.h>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/cpp/op_result.h>
#include <vc-backend-1/cpp/requests.h>

#include "cluster_calls.h"
#include "computer_objects.h"
#include "desktop_mode.h"
#include "desktop_views.h"
#include "kubernetes_options.h"
#include "pod_status.h"

namespace vc::kubernetes {

// The path of the egress firewall script in the network guard's image (the desktop image).
inline constexpr const char* kEgressFirewallCommand =
    "/usr/local/lib/mcp-virtual-computer/egress-firewall";

// An ApiError as the failure an op completes with: its kind chooses the status
// (unreachable -> VC_E_UNAVAILABLE, forbidden -> VC_E_PERMISSION, ...), its sentence is kept.
sdk::OpFailure failure_of(const ApiError& error);

class ComputerFlows {
 public:
  // How long a pod may take to run (scheduling, pulling the image, seeding the claim).
  static constexpr std::chrono::seconds kStartDeadline{300};
  // How long deleted objects may take to go.
  static constexpr std::chrono::seconds kDeleteDeadline{120};

  ComputerFlows(ClusterCalls& calls, const KubernetesOptions& options, const sdk::HostLog& log);

  // Where desktop computers' view URLs come from; without (the default) they have none.
  void set_desktop_views(DesktopViews* views) { views_ = views; }

  sdk::OpResult validate(sdk::CancelScope& scope);
  sdk::OpResult create(const sdk::CreateRequest& request, sdk::CancelScope& scope);
  sdk::OpResult attach(const sdk::AttachRequest& request, sdk::CancelScope& scope);
  sdk::OpResult list(sdk::CancelScope& scope);
  sdk::OpResult restart(const std::string& computer_id, sdk::CancelScope& scope);
  sdk::OpResult factory_reset(const std::string& computer_id, sdk::CancelScope& scope);
  sdk::OpResult remove(const std::string& computer_id, sdk::CancelScope& scope);
  sdk::OpResult set_network_access(const std::string& computer_id, bool enabled,
                                   sdk::CancelScope& scope);
  // {"enabled","desktop_url"}: Xfce's live state.
  sdk::OpResult get_desktop_environment(const std::string& computer_id, sdk::CancelScope& scope);
  // Switches Xfce in place; the computer's info.
  sdk::OpResult set_desktop_environment(const std::string& computer_id, bool enabled,
                                        sdk::CancelScope& scope);

  // The running pod of a computer, or the failure an op about it completes with (not found,
  // not running). For exec and the desktop.
  sdk::Expected<PodView, sdk::OpFailure> running_pod(const std::string& computer_id,
                                                     sdk::CancelScope& scope);

 private:
  using Failure = sdk::OpFailure;
  template <class T>
  using Expected = sdk::Expected<T, Failure>;

  ComputerSettings settings_for(const sdk::CreateRequest& request) const;
  Expected<nlohmann::json> start_pod(const nlohmann::json& pod, sdk::CancelScope& scope);
  Expected<nlohmann::json> wait_until_running(const std::string& name, sdk::CancelScope& scope);
  Expected<bool> wait_until_gone(ObjectKind kind, const std::string& name,
                                 sdk::CancelScope& scope);
  Expected<bool> delete_and_wait(ObjectKind kind, const std::string& name,
                                 sdk::CancelScope& scope);
  Expected<nlohmann::json> recreate_from_claim(const nlohmann::json& claim,
                                               sdk::CancelScope& scope);
  Expected<bool> network_is_off(const std::string& computer_id, sdk::CancelScope& scope);
  // Makes the computer's network `enabled` (policy and firewall), in a running pod.
  Expected<bool> apply_network(const PodView& pod, bool enabled, sdk::CancelScope& scope);
  // After a pod was made again: the firewall applied when the network is recorded off, and
  // the computer's info.
  sdk::OpResult reapply_network(const PodView& pod, sdk::CancelScope& scope);
  Expected<bool> run_firewall(const PodView& pod, const char* verb, sdk::CancelScope& scope);
  // A desktop computer's pod has started: waits until its desktop is live (logged if not).
  void settle_desktop(const PodView& pod, sdk::CancelScope& scope);
  // Attach: Xfce as the request asks, switched in place when it differs.
  Expected<PodView> desktop_as_asked(PodView pod, bool wanted, sdk::CancelScope& scope);
  // Removes what a failed create made.
  void roll_back(const std::string& computer_id, sdk::CancelScope& scope);
  sdk::OpResult info_result(const PodView& pod, bool network_access) const;
  sdk::ComputerInfo info_of(const PodView& pod, bool network_access) const;

  ClusterCalls& calls_;
  const KubernetesOptions& options_;
  const sdk::HostLog& log_;
  DesktopViews* views_ = nullptr;
};

// A pod for the same computer as `pod`, to create again: its spec and identity without what
// the server and the scheduler filled in (uid, resourceVersion, status, the node), starting in
// the desktop mode its label records.
nlohmann::json fresh_pod_from(const nlohmann::json& pod);

// The settings a claim's (or pod's) labels and annotations record, for making its pod again.
ComputerSettings settings_recorded_in(const nlohmann::json& object,
                                     const KubernetesOptions& options);

// 24 random bytes in hex (48 digits, as on the container engines): a desktop computer's secret.
std::string generate_desktop_token();

}  // namespace vc::kubernetes
