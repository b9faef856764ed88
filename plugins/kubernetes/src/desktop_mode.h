// desktop_mode.h — the Xfce session of a desktop computer on a cluster: read and switched in
// place through the desktop image's `vc-desktop` command, run by an exec in the pod's computer
// container.
//
// Where the wanted mode lives. In the image, `vc-desktop` keeps it in a marker file of the
// container's own filesystem. A restart on a cluster makes a new pod from the image, so that
// marker does not survive it: the mode is also recorded in the computer label
// mcp-virtual-computer.desktop of the pod and of the claim, and a pod made again starts in the
// recorded mode (its DESKTOP_ENVIRONMENT variable follows the label: follow_desktop_label()).
//
// Thread rule: the blocking functions on a lane thread (never the API thread); the pure ones
// on any thread.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc-backend-1/cpp/expected.h>
#include <vc-backend-1/cpp/op_result.h>

#include "cluster_calls.h"
#include "pod_status.h"

namespace vc::kubernetes {

// How long a switch may take before it is reported as failed (as on the container engines).
inline constexpr std::chrono::seconds kDesktopSwitchTimeout{15};
// The image's desktop supervisor command.
inline constexpr const char* kDesktopSupervisorCommand = "/usr/local/bin/vc-desktop";

struct DesktopState {
  bool wanted = false;   // the mode asked for
  bool enabled = false;  // Xfce is up (panel and desktop mapped)
  bool live = false;     // screen, VNC and bridge up, and Xfce as wanted
};

// [lane] Waits up to `wait` for the desktop of `pod` to be as wanted, then reports it (a zero
// wait just looks). Not being live in time is not a failure here; an exec that cannot run, or
// a supervisor that does not answer, is.
sdk::Expected<DesktopState, sdk::OpFailure> read_desktop_state(ClusterCalls& calls,
                                                               const PodView& pod,
                                                               std::chrono::seconds wait,
                                                               sdk::CancelScope& scope);

// [lane] Switches Xfce on or off in `pod` and waits until it is live. Fails with "Xfce did not
// start within 15 seconds. ..." when it is not.
sdk::Expected<DesktopState, sdk::OpFailure> switch_desktop(ClusterCalls& calls, const PodView& pod,
                                                           bool enabled, sdk::CancelScope& scope);

// [lane] Records `enabled` as the computer's mode in the labels of its pod and its claim.
sdk::Expected<bool, sdk::OpFailure> record_desktop_mode(ClusterCalls& calls,
                                                        const std::string& computer_id,
                                                        bool enabled, sdk::CancelScope& scope);

// [any] In a pod about to be made again: the computer container's DESKTOP_ENVIRONMENT set to
// what the pod's desktop label records.
void follow_desktop_label(nlohmann::json& pod);

// [any] The failure for Xfce asked of a computer whose image has no desktop.
sdk::OpFailure desktop_refused(const std::string& computer_id, const std::string& desktop_image);

}  // namespace vc::kubernetes
