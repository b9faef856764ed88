// computer_flows.cpp — the lifecycle flows. Thread rule: see computer_flows.h.
#include "computer_flows.h"

#include <openssl/rand.h>

#include <array>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

namespace vc::kubernetes {
namespace {

using nlohmann::json;
using sdk::OpFailure;
using sdk::OpResult;

const json& member(const json& value, const char* key) {
  static const json kNull;
  if (!value.is_object()) return kNull;
  const auto found = value.find(key);
  return found == value.end() ? kNull : *found;
}

std::string text_at(const json& value, const char* key) {
  const json& field = member(value, key);
  return field.is_string() ? field.get<std::string>() : "";
}

// What computer_ui and runtime_status tell the person watching (docs/kubernetes-backend.md,
// "What persists" and "The network switch").
std::string persistence_sentence(const PodView& pod) {
  const std::string workspace = pod.workspace.empty() ? "/workspace" : pod.workspace;
  return "Only " + workspace + " and the home directories (/root" +
         (pod.desktop_capable ? ", /home/computer" : "") + ") are kept across restarts, on the "
         "claim " + pod.name + "; everything else, such as packages installed with apt or files "
         "in /etc, is the image's again after a restart.";
}
constexpr const char* kNetworkEnforcement =
    "The egress firewall of the pod's network-guard container (IPv4 and IPv6 rules that "
    "commands in the computer cannot change), and a deny-all-egress NetworkPolicy where the "
    "cluster's network plugin enforces policies.";

// Claims and policies carry the pod's identity labels, so read_pod() reads them too.
bool is_ours(const json& object) { return read_pod(object).owned; }

OpFailure failure(vc_status status, std::string message) {
  return OpFailure{status, std::move(message), nullptr};
}

}  // namespace

OpFailure failure_of(const ApiError& error) {
  vc_status status = VC_E_FAILED;
  switch (error.kind) {
    case ApiErrorKind::unreachable:
    case ApiErrorKind::tls:
    case ApiErrorKind::credentials:
    case ApiErrorKind::unauthorized: status = VC_E_UNAVAILABLE; break;
    case ApiErrorKind::forbidden: status = VC_E_PERMISSION; break;
    case ApiErrorKind::not_found: status = VC_E_NOT_FOUND; break;
    case ApiErrorKind::conflict: status = VC_E_ALREADY_EXISTS; break;
    case ApiErrorKind::timeout: status = VC_E_TIMEOUT; break;
    case ApiErrorKind::cancelled: status = VC_E_CANCELLED; break;
    case ApiErrorKind::invalid: status = VC_E_INVALID_ARGUMENT; break;
    case ApiErrorKind::gone:
    case ApiErrorKind::server:
    case ApiErrorKind::protocol: status = VC_E_FAILED; break;
  }
  return OpFailure{status, error.message,
                   json{{"code", std::string("kubernetes.") + api_error_kind_name(error.kind)},
                        {"retryable", error.kind == ApiErrorKind::unreachable ||
                                          error.kind == ApiErrorKind::timeout}}};
}

std::string generate_desktop_token() {
  std::array<unsigned char, 24> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("the system's random source failed");
  }
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char byte : bytes) {
    std::array<char, 3> pair{};
    std::snprintf(pair.data(), pair.size(), "%02x", byte);
    hex += pair.data();
  }
  return hex;
}

json fresh_pod_from(const json& pod) {
  json fresh = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  const json& metadata = member(pod, "metadata");
  fresh["metadata"] = json::object();
  for (const char* key : {"name", "labels", "annotations"}) {
    if (metadata.contains(key)) fresh["metadata"][key] = metadata[key];
  }
  fresh["spec"] = member(pod, "spec");
  if (fresh["spec"].is_object()) fresh["spec"].erase("nodeName");  // schedule it afresh
  follow_desktop_label(fresh);
  return fresh;
}

ComputerSettings settings_recorded_in(const json& object, const KubernetesOptions& options) {
  ComputerSettings settings;
  const PodView recorded = read_pod(object);
  settings.computer_id = recorded.computer_id;
  settings.temporary = recorded.temporary;
  settings.desktop_environment = recorded.desktop_mode;
  settings.desktop_capable = recorded.desktop_capable;
  settings.image = recorded.image;
  if (settings.image.empty()) settings.image = options.computer_image();
  settings.workspace_directory = recorded.workspace;
  if (settings.workspace_directory.empty()) settings.workspace_directory = "/workspace";
  settings.pull_policy = options.image_pull_policy;
  settings.guard_image = options.desktop_image;
  settings.cpu_millis = options.cpu_millis;
  settings.memory_bytes = options.memory_bytes;
  settings.overrides = options.pod_overrides;
  if (settings.desktop_capable) settings.desktop_token = generate_desktop_token();
  return settings;
}

ComputerFlows::ComputerFlows(ClusterCalls& calls, const KubernetesOptions& options,
                             const sdk::HostLog& log)
    : calls_(calls), options_(options), log_(log) {}

// --- validate ---------------------------------------------------------------------------------

OpResult ComputerFlows::validate(sdk::CancelScope& scope) {
  // validate's failures are all "the engine is not usable" (VC_E_UNAVAILABLE), with the
  // sentence that says why; a refusal for lack of rights stays VC_E_PERMISSION.
  const auto unusable = [](const ApiError& error) {
    OpFailure failure = failure_of(error);
    if (failure.status != VC_E_PERMISSION && failure.status != VC_E_CANCELLED) {
      failure.status = VC_E_UNAVAILABLE;
    }
    return OpResult::failed(std::move(failure));
  };
  auto version = calls_.server_version(scope);
  if (!version) return unusable(version.error());
  // Reading the namespace's pods proves the credentials may work there (403 names the verb).
  auto pods = calls_.list(ObjectKind::pod, all_computers_label_selector(), scope);
  if (!pods) return unusable(pods.error());
  return OpResult::ok({{"engine", "kubernetes"},
                       {"engine_version", text_at(version.value(), "gitVersion")},
                       {"address", calls_.name_space()}});
}

// --- create -----------------------------------------------------------------------------------

ComputerSettings ComputerFlows::settings_for(const sdk::CreateRequest& request) const {
  ComputerSettings settings;
  settings.computer_id = request.computer_id;
  settings.image = request.image.value_or(options_.computer_image());
  settings.pull_policy = options_.image_pull_policy;
  settings.temporary = request.temporary;
  settings.desktop_capable = settings.image == options_.desktop_image;
  settings.desktop_environment = request.desktop_environment && settings.desktop_capable;
  if (settings.desktop_capable) settings.desktop_token = generate_desktop_token();
  settings.workspace_directory = request.workspace_directory;
  settings.guard_image = options_.desktop_image;
  settings.cpu_millis = options_.cpu_millis;
  if (request.cpus) settings.cpu_millis = static_cast<std::int64_t>(*request.cpus * 1000.0);
  settings.memory_bytes = request.memory_bytes ? request.memory_bytes : options_.memory_bytes;
  settings.overrides = options_.pod_overrides;
  return settings;
}

OpResult ComputerFlows::create(const sdk::CreateRequest& request, sdk::CancelScope& scope) {
  const std::string name = computer_object_name(request.computer_id);
  const std::string where = " in namespace " + calls_.name_space();
  if (request.desktop_environment && request.image && *request.image != options_.desktop_image) {
    return OpResult::error(VC_E_UNSUPPORTED,
                           "The desktop needs the desktop image (" + options_.desktop_image +
                               "); the image " + *request.image + " has none.");
  }
  // The name must be free: a pod or a claim of that name is a computer already (or not ours).
  for (ObjectKind kind : {ObjectKind::pod, ObjectKind::persistent_volume_claim}) {
    auto existing = calls_.get(kind, name, scope);
    if (existing) {
      if (!is_ours(existing.value())) {
        return OpResult::error(VC_E_ALREADY_EXISTS,
                               "The name " + name + " is taken" + where +
                                   " by an object this backend did not make.");
      }
      if (request.adopt_existing) {
        sdk::AttachRequest attach_request;
        attach_request.computer_id = request.computer_id;
        attach_request.network_access = request.network_access;
        attach_request.desktop_environment = request.desktop_environment;
        attach_request.shell = request.shell;
        return attach(attach_request, scope);
      }
      return OpResult::error(VC_E_ALREADY_EXISTS,
                             "The computer " + request.computer_id + " exists already" + where + ".");
    }
    if (existing.error().kind != ApiErrorKind::not_found) {
      return OpResult::failed(failure_of(existing.error()));
    }
  }

  const ComputerSettings settings = settings_for(request);
  auto claim = calls_.create(ObjectKind::persistent_volume_claim,
                             build_computer_claim(settings, options_.storage_class,
                                                  options_.workspace_size),
                             scope);
  if (!claim) return OpResult::failed(failure_of(claim.error()));
  if (!request.network_access) {
    auto policy = calls_.create(ObjectKind::network_policy,
                                build_network_off_policy(request.computer_id), scope);
    if (!policy && policy.error().kind != ApiErrorKind::conflict) {
      roll_back(request.computer_id, scope);
      return OpResult::failed(failure_of(policy.error()));
    }
  }
  auto pod = start_pod(build_computer_pod(settings), scope);
  if (!pod) {
    roll_back(request.computer_id, scope);
    return OpResult::failed(pod.error());
  }
  const PodView view = read_pod(pod.value());
  if (!request.network_access) {
    auto applied = apply_network(view, false, scope);
    if (!applied) {
      roll_back(request.computer_id, scope);
      return OpResult::failed(applied.error());
    }
  }
  settle_desktop(view, scope);
  return info_result(view, request.network_access);
}

void ComputerFlows::roll_back(const std::string& computer_id, sdk::CancelScope&) {
  // A cancelled create still cleans up: with a scope of its own.
  sdk::CancelScope cleanup;
  const std::string name = computer_object_name(computer_id);
  for (auto [kind, object] : {std::pair{ObjectKind::pod, name},
                              std::pair{ObjectKind::persistent_volume_claim, name},
                              std::pair{ObjectKind::network_policy,
                                        network_off_policy_name(computer_id)}}) {
    auto removed = calls_.remove(kind, object, 0, cleanup);
    if (!removed) log_.warn("Removing " + object + " after a failed create failed: " +
                            removed.error().message);
  }
}

// --- starting and stopping pods ---------------------------------------------------------------

ComputerFlows::Expected<json> ComputerFlows::start_pod(const json& pod, sdk::CancelScope& scope) {
  auto created = calls_.create(ObjectKind::pod, pod, scope);
  if (!created) return failure_of(created.error());
  return wait_until_running(text_at(member(pod, "metadata"), "name"), scope);
}

ComputerFlows::Expected<json> ComputerFlows::wait_until_running(const std::string& name,
                                                                sdk::CancelScope& scope) {
  std::string blocker;
  std::string waiting_for;
  bool deleted = false;
  auto outcome = calls_.watch_pod(
      name, kStartDeadline,
      [&](const json* pod) {
        if (pod == nullptr) return deleted = true;
        const PodView view = read_pod(*pod);
        if (view.computer_ready && view.guard_running && !view.deleting) return true;
        blocker = pod_start_blocker(*pod);
        waiting_for = pod_waiting_note(*pod);
        return !blocker.empty();
      },
      scope);
  if (!outcome) {
    if (outcome.error().kind == ApiErrorKind::timeout) {
      return failure(VC_E_TIMEOUT, "The pod " + name + " did not start within " +
                                       std::to_string(kStartDeadline.count()) + " s" +
                                       (waiting_for.empty() ? "" : "; " + waiting_for) + ".");
    }
    return failure_of(outcome.error());
  }
  if (deleted) return failure(VC_E_FAILED, "The pod " + name + " was deleted while it started.");
  if (!blocker.empty()) return failure(VC_E_FAILED, blocker);
  return std::move(outcome).value();
}

ComputerFlows::Expected<bool> ComputerFlows::wait_until_gone(ObjectKind kind,
                                                             const std::string& name,
                                                             sdk::CancelScope& scope) {
  if (kind == ObjectKind::pod) {
    auto gone = calls_.watch_pod(name, kDeleteDeadline,
                                 [](const json* pod) { return pod == nullptr; }, scope);
    if (!gone) return failure_of(gone.error());
    return true;
  }
  // Claims wait for their pod to go (the pvc-protection finalizer): look again until they are.
  const auto deadline = std::chrono::steady_clock::now() + kDeleteDeadline;
  while (std::chrono::steady_clock::now() < deadline) {
    auto object = calls_.get(kind, name, scope);
    if (!object) {
      if (object.error().kind == ApiErrorKind::not_found) return true;
      return failure_of(object.error());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (scope.cancelled()) return sdk::cancelled_failure();
  }
  return failure(VC_E_TIMEOUT, name + " was not deleted within " +
                                   std::to_string(kDeleteDeadline.count()) + " s.");
}

ComputerFlows::Expected<bool> ComputerFlows::delete_and_wait(ObjectKind kind,
                                                             const std::string& name,
                                                             sdk::CancelScope& scope) {
  auto removed = calls_.remove(kind, name, 0, scope);
  if (!removed) return failure_of(removed.error());
  if (!removed.value()) return false;
  auto gone = wait_until_gone(kind, name, scope);
  if (!gone) return gone.error();
  return true;
}

ComputerFlows::Expected<json> ComputerFlows::recreate_from_claim(const json& claim,
                                                                 sdk::CancelScope& scope) {
  const ComputerSettings settings = settings_recorded_in(claim, options_);
  return start_pod(build_computer_pod(settings), scope);
}

// --- attach, restart, reset, remove -----------------------------------------------------------

OpResult ComputerFlows::attach(const sdk::AttachRequest& request, sdk::CancelScope& scope) {
  const std::string name = computer_object_name(request.computer_id);
  auto pod = calls_.get(ObjectKind::pod, name, scope);
  Expected<json> running = failure(VC_E_FAILED, "");
  if (pod) {
    if (!is_ours(pod.value())) {
      return OpResult::error(VC_E_ALREADY_EXISTS, "The pod " + name + " in namespace " +
                                                      calls_.name_space() +
                                                      " is not a computer of this backend.");
    }
    const PodView view = read_pod(pod.value());
    if (view.deleting || view.state == "dead" || view.state == "stopped") {
      // Being deleted or ended: make it again from its own spec, on its claim.
      auto gone = delete_and_wait(ObjectKind::pod, name, scope);
      if (!gone) return OpResult::failed(gone.error());
      running = start_pod(fresh_pod_from(pod.value()), scope);
    } else {
      running = wait_until_running(name, scope);
    }
  } else if (pod.error().kind == ApiErrorKind::not_found) {
    auto claim = calls_.get(ObjectKind::persistent_volume_claim, name, scope);
    if (!claim) {
      if (claim.error().kind == ApiErrorKind::not_found) {
        return OpResult::error(VC_E_NOT_FOUND, "There is no computer " + request.computer_id +
                                                   " in namespace " + calls_.name_space() + ".");
      }
      return OpResult::failed(failure_of(claim.error()));
    }
    if (!is_ours(claim.value())) {
      return OpResult::error(VC_E_NOT_FOUND, "The claim " + name +
                                                 " is not a computer of this backend.");
    }
    running = recreate_from_claim(claim.value(), scope);
  } else {
    return OpResult::failed(failure_of(pod.error()));
  }
  if (!running) return OpResult::failed(running.error());
  auto view = desktop_as_asked(read_pod(running.value()), request.desktop_environment, scope);
  if (!view) return OpResult::failed(view.error());
  auto applied = apply_network(view.value(), request.network_access, scope);
  if (!applied) return OpResult::failed(applied.error());
  return info_result(view.value(), request.network_access);
}

OpResult ComputerFlows::restart(const std::string& computer_id, sdk::CancelScope& scope) {
  const std::string name = computer_object_name(computer_id);
  auto pod = calls_.get(ObjectKind::pod, name, scope);
  if (!pod) {
    if (pod.error().kind != ApiErrorKind::not_found) return OpResult::failed(failure_of(pod.error()));
    sdk::AttachRequest request;  // only the claim is left: making the pod again is the restart
    request.computer_id = computer_id;
    auto off = network_is_off(computer_id, scope);
    if (!off) return OpResult::failed(off.error());
    request.network_access = !off.value();
    return attach(request, scope);
  }
  auto gone = delete_and_wait(ObjectKind::pod, name, scope);
  if (!gone) return OpResult::failed(gone.error());
  auto running = start_pod(fresh_pod_from(pod.value()), scope);
  if (!running) return OpResult::failed(running.error());
  return reapply_network(read_pod(running.value()), scope);
}

OpResult ComputerFlows::reapply_network(const PodView& pod, sdk::CancelScope& scope) {
  // A new pod has a new network namespace: the rules the policy records go in again.
  auto off = network_is_off(pod.computer_id, scope);
  if (!off) return OpResult::failed(off.error());
  if (off.value()) {
    auto applied = run_firewall(pod, "block", scope);
    if (!applied) return OpResult::failed(applied.error());
  }
  settle_desktop(pod, scope);
  return info_result(pod, !off.value());
}

OpResult ComputerFlows::factory_reset(const std::string& computer_id, sdk::CancelScope& scope) {
  const std::string name = computer_object_name(computer_id);
  auto pod = calls_.get(ObjectKind::pod, name, scope);
  auto claim = calls_.get(ObjectKind::persistent_volume_claim, name, scope);
  if (!pod && pod.error().kind != ApiErrorKind::not_found) {
    return OpResult::failed(failure_of(pod.error()));
  }
  if (!claim) {
    if (claim.error().kind != ApiErrorKind::not_found) {
      return OpResult::failed(failure_of(claim.error()));
    }
    if (!pod) {
      return OpResult::error(VC_E_NOT_FOUND, "There is no computer " + computer_id +
                                                 " in namespace " + calls_.name_space() + ".");
    }
  }
  // The pod's spec when there is one (it keeps the desktop secret and any overrides), else
  // what the claim records.
  const json next_pod = pod ? fresh_pod_from(pod.value())
                            : build_computer_pod(settings_recorded_in(claim.value(), options_));
  const ComputerSettings recorded =
      settings_recorded_in(pod ? pod.value() : claim.value(), options_);
  for (ObjectKind kind : {ObjectKind::pod, ObjectKind::persistent_volume_claim}) {
    auto gone = delete_and_wait(kind, name, scope);
    if (!gone) return OpResult::failed(gone.error());
  }
  auto fresh_claim = calls_.create(
      ObjectKind::persistent_volume_claim,
      build_computer_claim(recorded, options_.storage_class, options_.workspace_size), scope);
  if (!fresh_claim) return OpResult::failed(failure_of(fresh_claim.error()));
  auto running = start_pod(next_pod, scope);
  if (!running) return OpResult::failed(running.error());
  return reapply_network(read_pod(running.value()), scope);
}

OpResult ComputerFlows::remove(const std::string& computer_id, sdk::CancelScope& scope) {
  const std::string name = computer_object_name(computer_id);
  bool removed = false;
  for (ObjectKind kind : {ObjectKind::pod, ObjectKind::persistent_volume_claim}) {
    auto object = calls_.get(kind, name, scope);
    if (!object) {
      if (object.error().kind == ApiErrorKind::not_found) continue;
      return OpResult::failed(failure_of(object.error()));
    }
    if (!is_ours(object.value())) {
      return OpResult::error(VC_E_ALREADY_EXISTS, name + " in namespace " + calls_.name_space() +
                                                      " was not made by this backend; it is left.");
    }
    auto gone = delete_and_wait(kind, name, scope);
    if (!gone) return OpResult::failed(gone.error());
    removed = removed || gone.value();
  }
  auto policy = calls_.remove(ObjectKind::network_policy, network_off_policy_name(computer_id),
                              0, scope);
  if (!policy) return OpResult::failed(failure_of(policy.error()));
  return OpResult::ok({{"computer_id", computer_id}, {"removed", removed}});
}

// --- list --------------------------------------------------------------------------------------

OpResult ComputerFlows::list(sdk::CancelScope& scope) {
  const std::string selector = all_computers_label_selector();
  auto pods = calls_.list(ObjectKind::pod, selector, scope);
  if (!pods) return OpResult::failed(failure_of(pods.error()));
  auto claims = calls_.list(ObjectKind::persistent_volume_claim, selector, scope);
  if (!claims) return OpResult::failed(failure_of(claims.error()));
  auto policies = calls_.list(ObjectKind::network_policy, selector, scope);
  if (!policies) return OpResult::failed(failure_of(policies.error()));
  std::set<std::string> network_off;
  for (const json& policy : policies.value()) {
    network_off.insert(read_pod(policy).computer_id);
  }
  json computers = json::array();
  std::set<std::string> seen;
  for (const json& pod : pods.value()) {
    const PodView view = read_pod(pod);
    if (view.computer_id.empty() || !seen.insert(view.computer_id).second) continue;
    computers.push_back(info_of(view, !network_off.contains(view.computer_id)).to_json());
  }
  // A claim without its pod is a stopped computer: attach makes its pod again.
  for (const json& claim : claims.value()) {
    PodView view = read_pod(claim);
    if (view.computer_id.empty() || !seen.insert(view.computer_id).second) continue;
    view.state = "stopped";
    computers.push_back(info_of(view, !network_off.contains(view.computer_id)).to_json());
  }
  return OpResult::ok({{"computers", std::move(computers)}});
}

// --- network ----------------------------------------------------------------------------------

ComputerFlows::Expected<bool> ComputerFlows::network_is_off(const std::string& computer_id,
                                                            sdk::CancelScope& scope) {
  auto policy = calls_.get(ObjectKind::network_policy, network_off_policy_name(computer_id),
                           scope);
  if (policy) return true;
  if (policy.error().kind == ApiErrorKind::not_found) return false;
  return failure_of(policy.error());
}

ComputerFlows::Expected<bool> ComputerFlows::run_firewall(const PodView& pod, const char* verb,
                                                          sdk::CancelScope& scope) {
  ExecCall call;
  call.pod = pod.name;
  call.container = kNetworkGuardContainer;
  call.argv = {kEgressFirewallCommand, verb};
  auto result = calls_.exec(call, scope);
  if (!result) return failure_of(result.error());
  if (result.value().exit_code != 0) {
    const int code = result.value().exit_code.value_or(-1);
    return failure(VC_E_FAILED, "The network guard of " + pod.name + " could not " +
                                    (std::string(verb) == "block" ? "cut" : "restore") +
                                    " the network (" +
                                    (code < 0 ? std::string("no exit code")
                                              : "exit code " + std::to_string(code)) +
                                    "): " + bounded_quote(result.value().stderr_bytes));
  }
  return true;
}

ComputerFlows::Expected<bool> ComputerFlows::apply_network(const PodView& pod, bool enabled,
                                                           sdk::CancelScope& scope) {
  const std::string policy_name = network_off_policy_name(pod.computer_id);
  if (!enabled) {
    // The record first, then the rules: a crash in between leaves "off" wanted and applied
    // again by the next attach.
    auto policy = calls_.create(ObjectKind::network_policy,
                                build_network_off_policy(pod.computer_id), scope);
    if (!policy && policy.error().kind != ApiErrorKind::conflict) {
      return failure_of(policy.error());
    }
    return run_firewall(pod, "block", scope);
  }
  auto opened = run_firewall(pod, "allow", scope);
  if (!opened) return opened.error();
  auto removed = calls_.remove(ObjectKind::network_policy, policy_name, 0, scope);
  if (!removed) return failure_of(removed.error());
  return true;
}

OpResult ComputerFlows::set_network_access(const std::string& computer_id, bool enabled,
                                           sdk::CancelScope& scope) {
  auto pod = running_pod(computer_id, scope);
  if (!pod) return OpResult::failed(pod.error());
  auto applied = apply_network(pod.value(), enabled, scope);
  if (!applied) return OpResult::failed(applied.error());
  return info_result(pod.value(), enabled);
}

sdk::Expected<PodView, OpFailure> ComputerFlows::running_pod(const std::string& computer_id,
                                                             sdk::CancelScope& scope) {
  const std::string name = computer_object_name(computer_id);
  auto pod = calls_.get(ObjectKind::pod, name, scope);
  if (!pod) {
    if (pod.error().kind == ApiErrorKind::not_found) {
      return failure(VC_E_NOT_FOUND, "The computer " + computer_id + " has no pod in namespace " +
                                         calls_.name_space() + " (removed, or stopped?).");
    }
    return failure_of(pod.error());
  }
  PodView view = read_pod(pod.value());
  if (!view.owned) {
    return failure(VC_E_NOT_FOUND, "The pod " + name + " is not a computer of this backend.");
  }
  if (view.state != "running") {
    const std::string blocker = pod_start_blocker(pod.value());
    return failure(VC_E_COMPUTER_STOPPED,
                   "The computer " + computer_id + " is not running (its pod is " +
                       (view.phase.empty() ? std::string("in no phase") : view.phase) + ")" +
                       (blocker.empty() ? "." : ": " + blocker));
  }
  return view;
}

// --- desktop ----------------------------------------------------------------------------------

void ComputerFlows::settle_desktop(const PodView& pod, sdk::CancelScope& scope) {
  if (!pod.desktop_capable) return;
  auto state = read_desktop_state(calls_, pod, kDesktopSwitchTimeout, scope);
  if (!state) {
    log_.warn("The desktop of computer " + pod.computer_id + " could not be read: " +
              state.error().message);
  } else if (!state.value().live) {
    log_.warn("The desktop of computer " + pod.computer_id + " was not live " +
              std::to_string(kDesktopSwitchTimeout.count()) +
              " s after its pod started; the desktop tools may fail until it is.");
  }
}

ComputerFlows::Expected<PodView> ComputerFlows::desktop_as_asked(PodView pod, bool wanted,
                                                                 sdk::CancelScope& scope) {
  if (!pod.desktop_capable) {
    if (wanted) return desktop_refused(pod.computer_id, options_.desktop_image);
    return pod;
  }
  if (pod.desktop_mode == wanted) {
    settle_desktop(pod, scope);
    return pod;
  }
  auto recorded = record_desktop_mode(calls_, pod.computer_id, wanted, scope);
  if (!recorded) return recorded.error();
  auto switched = switch_desktop(calls_, pod, wanted, scope);
  if (!switched) return switched.error();
  pod.desktop_mode = wanted;
  return pod;
}

OpResult ComputerFlows::get_desktop_environment(const std::string& computer_id,
                                                sdk::CancelScope& scope) {
  auto pod = running_pod(computer_id, scope);
  if (!pod) return OpResult::failed(pod.error());
  if (!pod.value().desktop_capable) {
    return OpResult::ok({{"enabled", false}, {"desktop_url", nullptr}});
  }
  auto state = read_desktop_state(calls_, pod.value(), std::chrono::seconds(0), scope);
  if (!state) return OpResult::failed(state.error());
  const auto url =
      views_ && state.value().enabled ? views_->url_for(pod.value()) : std::nullopt;
  return OpResult::ok({{"enabled", state.value().enabled},
                       {"desktop_url", url ? json(*url) : json(nullptr)}});
}

OpResult ComputerFlows::set_desktop_environment(const std::string& computer_id, bool enabled,
                                                sdk::CancelScope& scope) {
  auto pod = running_pod(computer_id, scope);
  if (!pod) {
    if (pod.error().status == VC_E_COMPUTER_STOPPED) {
      return OpResult::error(VC_E_COMPUTER_STOPPED,
                             "Computer " + computer_id + " is not running, so its desktop cannot "
                             "be switched; start it first (any command starts it).");
    }
    return OpResult::failed(pod.error());
  }
  auto switched = desktop_as_asked(pod.value(), enabled, scope);
  if (!switched) return OpResult::failed(switched.error());
  auto off = network_is_off(computer_id, scope);
  if (!off) return OpResult::failed(off.error());
  return info_result(switched.value(), !off.value());
}

// --- results ----------------------------------------------------------------------------------

sdk::ComputerInfo ComputerFlows::info_of(const PodView& pod, bool network_access) const {
  sdk::ComputerInfo info;
  info.computer_id = pod.computer_id;
  info.sandbox_id = calls_.name_space() + "/" + pod.name;
  info.state = pod.state;
  info.temporary = pod.temporary;
  if (!pod.image.empty()) info.image = pod.image;
  if (!pod.created_at.empty()) info.created_at = pod.created_at;
  info.network_access = network_access;
  info.desktop_environment = pod.desktop_capable && pod.desktop_mode;
  // As on the other engines, the view is offered while Xfce is on.
  if (views_ && info.desktop_environment) info.desktop_url = views_->url_for(pod);
  info.persistence = persistence_sentence(pod);
  if (!network_access) info.network_enforcement = kNetworkEnforcement;
  return info;
}

OpResult ComputerFlows::info_result(const PodView& pod, bool network_access) const {
  return OpResult::ok(info_of(pod, network_access).to_json());
}

}  // namespace vc::kubernetes
