// pod_status.cpp — reading a Pod document defensively. Pure; any thread.
#include "pod_status.h"

#include "api_error.h"
#include "computer_objects.h"

namespace vc::kubernetes {
namespace {

using nlohmann::json;

constexpr std::size_t kQuoteLimit = 300;

// The member `key` of `value` when `value` is an object that has it; else a null json.
const json& member(const json& value, const char* key) {
  static const json kNull;
  if (!value.is_object()) return kNull;
  const auto found = value.find(key);
  return found == value.end() ? kNull : *found;
}

// A string member, cut to a bounded length; "" when absent or not a string.
std::string text(const json& value, const char* key) {
  const json& field = member(value, key);
  return field.is_string() ? bounded_quote(field.get<std::string>(), kQuoteLimit) : "";
}

bool flag(const json& value, const char* key) {
  const json& field = member(value, key);
  return field.is_boolean() && field.get<bool>();
}

// The status entry of container `name` among statuses[] (containerStatuses or
// initContainerStatuses); null when absent.
const json& container_status(const json& statuses, const char* name) {
  static const json kNull;
  if (!statuses.is_array()) return kNull;
  for (const json& status : statuses) {
    if (text(status, "name") == name) return status;
  }
  return kNull;
}

const json& condition(const json& pod, const char* type) {
  static const json kNull;
  const json& conditions = member(member(pod, "status"), "conditions");
  if (!conditions.is_array()) return kNull;
  for (const json& entry : conditions) {
    if (text(entry, "type") == type) return entry;
  }
  return kNull;
}

std::string label(const json& pod, const char* key) {
  return text(member(member(pod, "metadata"), "labels"), key);
}

std::string computer_image(const json& pod) {
  const json& containers = member(member(pod, "spec"), "containers");
  if (!containers.is_array()) return "";
  for (const json& container : containers) {
    if (text(container, "name") == kComputerContainer) return text(container, "image");
  }
  return "";
}

// The value of `variable` in the computer container's environment, empty when it is not set.
std::string computer_env(const json& pod, const char* variable) {
  const json& containers = member(member(pod, "spec"), "containers");
  if (!containers.is_array()) return "";
  for (const json& container : containers) {
    if (text(container, "name") != kComputerContainer) continue;
    const json& env = member(container, "env");
    if (!env.is_array()) return "";
    for (const json& entry : env) {
      if (text(entry, "name") == variable) return text(entry, "value");
    }
  }
  return "";
}

std::string state_of(const PodView& view, const json& computer) {
  if (view.deleting) return "stopped";
  if (view.phase == "Failed") return "dead";
  if (view.phase == "Succeeded") return "stopped";
  if (view.phase == "Running") {
    if (view.computer_ready) return "running";
    // Running with the computer container down: it is being restarted by the kubelet.
    return member(computer, "restartCount").is_number_integer() &&
                   member(computer, "restartCount").get<long long>() > 0
               ? "restarting"
               : "created";
  }
  return "created";
}

// Waiting reasons that do not clear by themselves.
bool is_stuck_waiting_reason(const std::string& reason) {
  return reason == "ErrImagePull" || reason == "ImagePullBackOff" ||
         reason == "ErrImageNeverPull" || reason == "InvalidImageName" ||
         reason == "CreateContainerConfigError" || reason == "CreateContainerError" ||
         reason == "CrashLoopBackOff" || reason == "RunContainerError";
}

// `text` closed with a full stop unless it ends with one already (the API's messages vary).
std::string as_sentence_end(const std::string& text) {
  if (!text.empty() && (text.back() == '.' || text.back() == '!' || text.back() == '?')) {
    return text;
  }
  return text + ".";
}

std::string reason_with_message(const std::string& reason, const std::string& message) {
  return message.empty() ? reason : reason + ": " + message;
}

// A container (init or not) that is waiting for good, as the tail of a sentence.
std::string stuck_container(const json& statuses, const json& spec_containers) {
  if (!statuses.is_array()) return "";
  for (const json& status : statuses) {
    const json& waiting = member(member(status, "state"), "waiting");
    const std::string reason = text(waiting, "reason");
    if (!is_stuck_waiting_reason(reason)) continue;
    const std::string name = text(status, "name");
    const std::string detail = reason_with_message(reason, text(waiting, "message"));
    if (reason.find("Image") != std::string::npos) {
      std::string image = text(status, "image");
      if (spec_containers.is_array()) {
        for (const json& container : spec_containers) {
          if (text(container, "name") == name) image = text(container, "image");
        }
      }
      return "its container " + name + "'s image \"" + image + "\" cannot be pulled (" + detail +
             ")";
    }
    return "its container " + name + " cannot run (" + detail + ")";
  }
  return "";
}

// An init container that ended in failure (the claim's seeding).
std::string failed_init_container(const json& statuses) {
  if (!statuses.is_array()) return "";
  for (const json& status : statuses) {
    const json& terminated = member(member(status, "state"), "terminated");
    const json& code = member(terminated, "exitCode");
    if (!code.is_number_integer() || code.get<long long>() == 0) continue;
    return "its init container " + text(status, "name") + " failed with exit code " +
           std::to_string(code.get<long long>()) +
           (text(terminated, "message").empty() ? "" : " (" + text(terminated, "message") + ")");
  }
  return "";
}

}  // namespace

bool is_waiting_for_claim(const std::string& scheduler_message) {
  // The scheduler's words while a claim is still being provisioned: it retries by itself.
  // "bound to non-existent pv(s)": the claim was just bound to a volume the scheduler's cache
  // has not seen yet (seen when a name is used again right after its claim was deleted).
  // 'persistentvolumeclaim "x" not found': the pod came to the scheduler before the claim this
  // backend made just before it reached the scheduler's cache. (A claim that is really gone
  // ends in the wait's own deadline.)
  return scheduler_message.find("unbound immediate PersistentVolumeClaims") != std::string::npos ||
         scheduler_message.find("waiting for first consumer") != std::string::npos ||
         scheduler_message.find("bound to non-existent pv") != std::string::npos ||
         (scheduler_message.find("persistentvolumeclaim \"") != std::string::npos &&
          scheduler_message.find("\" not found") != std::string::npos);
}

std::string pod_waiting_note(const json& pod) {
  const json& scheduled = condition(pod, "PodScheduled");
  if (text(scheduled, "status") == "False") {
    return "not scheduled yet: " + text(scheduled, "message");
  }
  const json& status = member(pod, "status");
  for (const char* key : {"initContainerStatuses", "containerStatuses"}) {
    const json& statuses = member(status, key);
    if (!statuses.is_array()) continue;
    for (const json& entry : statuses) {
      const json& waiting = member(member(entry, "state"), "waiting");
      if (waiting.is_object()) {
        return "its container " + text(entry, "name") + " is waiting (" +
               reason_with_message(text(waiting, "reason"), text(waiting, "message")) + ")";
      }
    }
  }
  return text(status, "phase").empty() ? "" : "it is " + text(status, "phase");
}

PodView read_pod(const json& pod) {
  PodView view;
  const json& metadata = member(pod, "metadata");
  const json& status = member(pod, "status");
  view.name = text(metadata, "name");
  view.uid = text(metadata, "uid");
  view.resource_version = text(metadata, "resourceVersion");
  view.created_at = text(metadata, "creationTimestamp");
  view.deleting = member(metadata, "deletionTimestamp").is_string();
  view.owned = label(pod, object_keys::kOwned) == "true";
  view.computer_id = label(pod, object_keys::kComputerId);
  view.temporary = label(pod, object_keys::kTemporary) == "true";
  view.desktop_mode = label(pod, object_keys::kDesktop) == "true";
  view.desktop_capable = label(pod, object_keys::kDesktopCapable) == "true";
  if (view.desktop_capable) view.desktop_token = computer_env(pod, kDesktopTokenEnv);
  view.image = text(member(metadata, "annotations"), object_keys::kImage);
  if (view.image.empty()) view.image = computer_image(pod);
  view.workspace = text(member(metadata, "annotations"), object_keys::kWorkspace);
  view.phase = text(status, "phase");
  const json& computer = container_status(member(status, "containerStatuses"), kComputerContainer);
  view.computer_ready = flag(computer, "ready") && member(member(computer, "state"), "running").is_object();
  const json& guard = container_status(member(status, "containerStatuses"), kNetworkGuardContainer);
  view.guard_running = member(member(guard, "state"), "running").is_object();
  view.state = state_of(view, computer);
  return view;
}

std::string pod_start_blocker(const json& pod) {
  const std::string name = text(member(pod, "metadata"), "name");
  const json& status = member(pod, "status");
  const json& spec = member(pod, "spec");
  const json& scheduled = condition(pod, "PodScheduled");
  if (text(scheduled, "status") == "False" && text(scheduled, "reason") == "Unschedulable" &&
      !is_waiting_for_claim(text(scheduled, "message"))) {
    const std::string why = text(scheduled, "message");
    return "The pod " + name + " cannot be scheduled: " +
           as_sentence_end(why.empty() ? std::string("the scheduler gave no reason") : why);
  }
  std::string cause = failed_init_container(member(status, "initContainerStatuses"));
  if (cause.empty()) {
    cause = stuck_container(member(status, "initContainerStatuses"),
                            member(spec, "initContainers"));
  }
  if (cause.empty()) {
    cause = stuck_container(member(status, "containerStatuses"), member(spec, "containers"));
  }
  if (cause.empty() && text(status, "phase") == "Failed") {
    const auto death = pod_death(pod);
    cause = death ? death->reason : "it failed";
  }
  return cause.empty() ? "" : "The pod " + name + " cannot start: " + cause + ".";
}

std::optional<PodDeath> pod_death(const json& pod) {
  const json& metadata = member(pod, "metadata");
  const json& status = member(pod, "status");
  const json& computer = container_status(member(status, "containerStatuses"), kComputerContainer);
  const json& terminated = member(member(computer, "state"), "terminated");
  const std::string phase = text(status, "phase");
  if (terminated.is_object()) {
    PodDeath death;
    const json& code = member(terminated, "exitCode");
    if (code.is_number_integer()) death.exit_code = static_cast<int>(code.get<long long>());
    const std::string reason = text(terminated, "reason");
    death.reason = "the computer's container exited" +
                   (death.exit_code ? " with code " + std::to_string(*death.exit_code) : "") +
                   (reason.empty() ? "" : " (" + reason + ")");
    return death;
  }
  if (phase == "Failed") {
    const std::string reason = text(status, "reason");
    const std::string why = reason_with_message(reason, text(status, "message"));
    return PodDeath{std::nullopt, reason == "Evicted" ? "the pod was evicted: " + text(status, "message")
                                                     : "the pod failed" + (why.empty() ? "" : ": " + why)};
  }
  if (phase == "Succeeded") return PodDeath{std::nullopt, "the pod ended"};
  if (member(metadata, "deletionTimestamp").is_string()) {
    return PodDeath{std::nullopt, "the pod was deleted"};
  }
  return std::nullopt;
}

}  // namespace vc::kubernetes
