// desktop_mode.cpp — vc-desktop through the API's exec; the mode's record in labels.
#include "desktop_mode.h"

#include <utility>
#include <vector>

#include "computer_flows.h"
#include "computer_objects.h"

namespace vc::kubernetes {
namespace {

using nlohmann::json;
using sdk::OpFailure;

// vc-desktop's exit status when the desktop was not as wanted within the wait.
constexpr int kNotLiveInTime = 3;
// The exec itself gets this much beyond the wait it asks vc-desktop for.
constexpr std::chrono::seconds kExecSlack{10};

std::optional<DesktopState> parse_state(const std::string& text) {
  const json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return std::nullopt;
  auto flag = [&document](const char* key) {
    const auto it = document.find(key);
    return it != document.end() && it->is_boolean() && it->get<bool>();
  };
  return DesktopState{flag("wanted"), flag("enabled"), flag("live")};
}

// Runs vc-desktop with `arguments`; its state when it answered (live in time or not).
sdk::Expected<std::pair<int, DesktopState>, OpFailure> run_supervisor(
    ClusterCalls& calls, const PodView& pod, std::vector<std::string> arguments,
    std::chrono::seconds wait, sdk::CancelScope& scope) {
  ExecCall call;
  call.pod = pod.name;
  call.container = kComputerContainer;
  call.argv = {kDesktopSupervisorCommand};
  call.argv.insert(call.argv.end(), arguments.begin(), arguments.end());
  call.deadline = wait + kExecSlack;
  auto ran = calls.exec(call, scope);
  if (!ran) return failure_of(ran.error());
  const int code = ran.value().exit_code.value_or(-1);
  const auto state = parse_state(ran.value().stdout_bytes);
  if ((code == 0 || code == kNotLiveInTime) && state) return std::make_pair(code, *state);
  const std::string& said =
      ran.value().stderr_bytes.empty() ? ran.value().stdout_bytes : ran.value().stderr_bytes;
  return OpFailure{VC_E_FAILED,
                   "The desktop supervisor of computer " + pod.computer_id +
                       " did not answer (vc-desktop " +
                       (code < 0 ? std::string("ended without an exit code")
                                 : "exited with " + std::to_string(code)) +
                       (said.empty() ? "" : ": " + bounded_quote(said)) +
                       "). Its image may be damaged; a factory reset makes it again from the "
                       "desktop image.",
                   json{{"code", "kubernetes.desktop_supervisor_failed"}, {"retryable", false}}};
}

}  // namespace

sdk::Expected<DesktopState, OpFailure> read_desktop_state(ClusterCalls& calls, const PodView& pod,
                                                          std::chrono::seconds wait,
                                                          sdk::CancelScope& scope) {
  auto answered =
      run_supervisor(calls, pod, {"wait", "--wait", std::to_string(wait.count())}, wait, scope);
  if (!answered) return answered.error();
  return answered.value().second;
}

sdk::Expected<DesktopState, OpFailure> switch_desktop(ClusterCalls& calls, const PodView& pod,
                                                      bool enabled, sdk::CancelScope& scope) {
  auto answered = run_supervisor(
      calls, pod,
      {"set", enabled ? "on" : "off", "--wait", std::to_string(kDesktopSwitchTimeout.count())},
      kDesktopSwitchTimeout, scope);
  if (!answered) return answered.error();
  const auto [code, state] = answered.value();
  if (code == kNotLiveInTime) {
    return OpFailure{VC_E_TIMEOUT,
                     std::string(enabled ? "Xfce did not start" : "Xfce did not stop") +
                         " within " + std::to_string(kDesktopSwitchTimeout.count()) +
                         " seconds. The computer itself is still running and was not replaced.",
                     json{{"code", "kubernetes.desktop_switch_timeout"}, {"retryable", true}}};
  }
  return state;
}

sdk::Expected<bool, OpFailure> record_desktop_mode(ClusterCalls& calls,
                                                   const std::string& computer_id, bool enabled,
                                                   sdk::CancelScope& scope) {
  const json patch = {
      {"metadata", {{"labels", {{object_keys::kDesktop, enabled ? "true" : "false"}}}}}};
  const std::string name = computer_object_name(computer_id);
  for (ObjectKind kind : {ObjectKind::pod, ObjectKind::persistent_volume_claim}) {
    auto patched = calls.merge_patch(kind, name, patch, scope);
    // A pod being replaced right now is made from the claim's record.
    if (!patched && patched.error().kind != ApiErrorKind::not_found) {
      return failure_of(patched.error());
    }
  }
  return true;
}

void follow_desktop_label(json& pod) {
  const json wanted = pod.is_object() ? pod.value(
      json::json_pointer("/metadata/labels/" + std::string(object_keys::kDesktop)), json())
                                      : json();
  if (!wanted.is_string()) return;
  const auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return;
  const auto containers = spec->find("containers");
  if (containers == spec->end() || !containers->is_array()) return;
  for (json& container : *containers) {
    if (!container.is_object() || container.value("name", "") != kComputerContainer) continue;
    const auto env = container.find("env");
    if (env == container.end() || !env->is_array()) return;
    for (json& variable : *env) {
      if (variable.is_object() && variable.value("name", "") == kDesktopModeEnv) {
        variable["value"] = wanted;
      }
    }
  }
}

OpFailure desktop_refused(const std::string& computer_id, const std::string& desktop_image) {
  return OpFailure{VC_E_UNSUPPORTED,
                   "Computer " + computer_id +
                       " was created from a headless or custom image and cannot start Xfce in "
                       "place. Its data was left untouched (a reset keeps the image: create it "
                       "from " + desktop_image + " to get a desktop).",
                   json{{"code", "kubernetes.desktop_unsupported"}, {"retryable", false}}};
}

}  // namespace vc::kubernetes
