// kubernetes_backend.cpp — ops onto lanes, the connection made once, the death watch.
// Thread rule: see kubernetes_backend.h.
#include "kubernetes_backend.h"

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include <vc_agent_channel/desktop_channel.h>

#include "command_exec.h"

namespace vc::kubernetes {
namespace {

using nlohmann::json;
using sdk::OpResult;

constexpr const char* kClusterLane = "cluster";
// A death watch looks again this often while the backend itself restarts the computer.
constexpr std::chrono::milliseconds kOwnStopPoll{500};
// How long one watch of the pod runs before it is opened again.
constexpr std::chrono::minutes kDeathWatchSpan{30};

std::string computer_lane(const std::string& computer_id) { return "computer:" + computer_id; }
std::string desktop_lane(const std::string& computer_id) { return "desktop:" + computer_id; }

std::string instructions_text(const std::string& shell, std::int64_t default_timeout_s) {
  const auto slash = shell.find_last_of('/');
  const std::string shell_name = slash == std::string::npos ? shell : shell.substr(slash + 1);
  return "Execute a shell command in one persistent Linux computer, a pod on a Kubernetes "
         "cluster. Commands run in " + shell_name +
         ". Each call is independent: shell variables and the working directory do not persist "
         "between calls. The workspace and the home directory persist (also across restarts); "
         "everything else, such as packages installed with apt, is reset to the image when the "
         "computer restarts. Use working_directory or chain commands with && to work in another "
         "directory.\n\nUse stdin to write files without shell escaping (for example "
         "command=\"cat > file.txt\" with the file's content as stdin). Commands time out after " +
         std::to_string(default_timeout_s) +
         " seconds by default (override with the timeout parameter for longer tasks).";
}

}  // namespace

// While alive, the computer's pod goes away on this backend's request.
class KubernetesBackend::OwnStop {
 public:
  OwnStop(KubernetesBackend& backend, std::string computer_id)
      : backend_(backend), computer_id_(std::move(computer_id)) {
    std::lock_guard lock(backend_.computers_mutex_);
    ++backend_.own_stops_[computer_id_];
    ++backend_.stop_generations_[computer_id_];
  }
  ~OwnStop() {
    std::lock_guard lock(backend_.computers_mutex_);
    if (--backend_.own_stops_[computer_id_] == 0) backend_.own_stops_.erase(computer_id_);
  }
  OwnStop(const OwnStop&) = delete;
  OwnStop& operator=(const OwnStop&) = delete;

 private:
  KubernetesBackend& backend_;
  std::string computer_id_;
};

vc_status KubernetesBackend::open(const vc_host_services* host, std::string_view config_json,
                                  ClusterCallsFactory connect, vc_backend** out_backend,
                                  std::string& error) {
  const json config = json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (!config.is_object()) {
    error = "the backend configuration is not a JSON object";
    return VC_E_INVALID_ARGUMENT;
  }
  auto options = parse_kubernetes_options(config, error);
  if (!options) return VC_E_INVALID_ARGUMENT;
  auto* backend = new KubernetesBackend(host, std::move(*options), std::move(connect));
  *out_backend = &backend->handle_;
  return VC_OK;
}

KubernetesBackend::KubernetesBackend(const vc_host_services* host, KubernetesOptions options,
                                     ClusterCallsFactory connect)
    : handle_(sdk::make_backend_handle(this)),
      log_(host),
      options_(std::move(options)),
      connect_(std::move(connect)) {}

KubernetesBackend::~KubernetesBackend() = default;

void KubernetesBackend::destroy() {
  // Cancel hooks abort the calls in flight, so the lanes end promptly; then the connection.
  registry_.close(sdk::OpRegistry::PendingWork::cancel);
  lanes_.stop_and_join();
  if (agents_) agents_->shutdown();
  agents_.reset();
  if (views_) views_->stop();  // before the API thread stops
  views_.reset();
  flows_.reset();
  calls_.reset();
  delete this;
}

sdk::Expected<ComputerFlows*, sdk::OpFailure> KubernetesBackend::flows() {
  std::lock_guard lock(connection_mutex_);
  if (!flows_) {
    auto made = connect_(options_);
    if (!made) return sdk::OpFailure{VC_E_UNAVAILABLE, made.error().message, nullptr};
    calls_ = std::move(made).value();
    flows_ = std::make_unique<ComputerFlows>(*calls_, options_, log_);
    views_ = std::make_unique<DesktopViews>(*calls_, log_);
    flows_->set_desktop_views(views_.get());
    if (AgentTransport* transport = calls_->agent_transport()) {
      agents_ = std::make_unique<PodAgents>(*transport, log_, options_.exec_agent,
                                            options_.exec_agent_binary);
    }
  }
  return flows_.get();
}

vc_status KubernetesBackend::run(
    const vc_op* op, const std::string& lane,
    std::function<OpResult(ComputerFlows&, const sdk::Pending&, sdk::CancelScope&)> work) {
  return sdk::run_in_lane(registry_, lanes_, op, lane,
                          [this, work = std::move(work)](const sdk::Pending& pending,
                                                         sdk::CancelScope& scope) {
                            auto flows = this->flows();
                            if (!flows) return OpResult::failed(flows.error());
                            return work(*flows.value(), pending, scope);
                          });
}

void KubernetesBackend::forget_agents(const std::string& computer_id, const char* why) {
  if (agents_) agents_->forget(computer_id, why);
}

void KubernetesBackend::remember_shell(const std::string& computer_id, const std::string& shell,
                                       const std::string& workspace) {
  std::lock_guard lock(computers_mutex_);
  shells_[computer_id] = {shell, workspace};
}

bool KubernetesBackend::stopped_by_us(const std::string& computer_id, std::uint64_t since) {
  std::lock_guard lock(computers_mutex_);
  if (own_stops_.contains(computer_id) || removed_.contains(computer_id)) return true;
  const auto generation = stop_generations_.find(computer_id);
  return generation != stop_generations_.end() && generation->second != since;
}

std::uint64_t KubernetesBackend::stop_generation(const std::string& computer_id) {
  std::lock_guard lock(computers_mutex_);
  const auto generation = stop_generations_.find(computer_id);
  return generation == stop_generations_.end() ? 0 : generation->second;
}

// --- the operations -----------------------------------------------------------------------------

vc_status KubernetesBackend::validate(sdk::ValidateRequest, const vc_op* op) {
  return run(op, kClusterLane, [](ComputerFlows& flows, const sdk::Pending&,
                                  sdk::CancelScope& scope) { return flows.validate(scope); });
}

vc_status KubernetesBackend::list(sdk::ListRequest, const vc_op* op) {
  return run(op, kClusterLane, [](ComputerFlows& flows, const sdk::Pending&,
                                  sdk::CancelScope& scope) { return flows.list(scope); });
}

vc_status KubernetesBackend::create_computer(sdk::CreateRequest request, const vc_op* op) {
  remember_shell(request.computer_id, request.shell, request.workspace_directory);
  {
    std::lock_guard lock(computers_mutex_);
    removed_.erase(request.computer_id);
  }
  const std::string lane = computer_lane(request.computer_id);
  return run(op, lane, [request = std::move(request)](ComputerFlows& flows, const sdk::Pending&,
                                                      sdk::CancelScope& scope) {
    return flows.create(request, scope);
  });
}

vc_status KubernetesBackend::attach(sdk::AttachRequest request, const vc_op* op) {
  {
    std::lock_guard lock(computers_mutex_);
    shells_[request.computer_id].first = request.shell;
  }
  const std::string lane = computer_lane(request.computer_id);
  return run(op, lane, [this, request = std::move(request)](ComputerFlows& flows,
                                                            const sdk::Pending&,
                                                            sdk::CancelScope& scope) {
    // Attach may make the pod again: an agent line to the pod it replaced leads nowhere.
    forget_agents(request.computer_id, "the computer was attached again");
    return flows.attach(request, scope);
  });
}

vc_status KubernetesBackend::restart(sdk::ComputerRequest request, const vc_op* op) {
  const std::string id = request.computer_id;
  return run(op, computer_lane(id),
             [this, id](ComputerFlows& flows, const sdk::Pending&, sdk::CancelScope& scope) {
               OwnStop own(*this, id);
               forget_agents(id, "the computer is being restarted");
               return flows.restart(id, scope);
             });
}

vc_status KubernetesBackend::factory_reset(sdk::ComputerRequest request, const vc_op* op) {
  const std::string id = request.computer_id;
  return run(op, computer_lane(id),
             [this, id](ComputerFlows& flows, const sdk::Pending&, sdk::CancelScope& scope) {
               OwnStop own(*this, id);
               forget_agents(id, "the computer is being reset");
               return flows.factory_reset(id, scope);
             });
}

vc_status KubernetesBackend::remove(sdk::ComputerRequest request, const vc_op* op) {
  const std::string id = request.computer_id;
  return run(op, computer_lane(id),
             [this, id](ComputerFlows& flows, const sdk::Pending&, sdk::CancelScope& scope) {
               OwnStop own(*this, id);
               forget_agents(id, "the computer is being deleted");
               OpResult result = flows.remove(id, scope);
               if (result.succeeded()) {
                 if (views_) views_->forget(id);
                 std::lock_guard lock(computers_mutex_);
                 removed_.insert(id);
               }
               return result;
             });
}

vc_status KubernetesBackend::set_network_access(sdk::ToggleRequest request, const vc_op* op) {
  return run(op, computer_lane(request.computer_id),
             [request](ComputerFlows& flows, const sdk::Pending&, sdk::CancelScope& scope) {
               return flows.set_network_access(request.computer_id, request.enabled, scope);
             });
}

vc_status KubernetesBackend::exec(sdk::ExecRequest request, std::string_view stdin_bytes,
                                  const vc_op* op) {
  std::string shell = "/bin/sh";
  {
    std::lock_guard lock(computers_mutex_);
    auto known = shells_.find(request.computer_id);
    if (known != shells_.end() && !known->second.first.empty()) shell = known->second.first;
  }
  const std::string lane = computer_lane(request.computer_id);
  return run(op, lane,
             [this, request = std::move(request), input = std::string(stdin_bytes),
              shell](ComputerFlows& flows, const sdk::Pending& pending, sdk::CancelScope& scope) {
               if (auto by_agent =
                       run_command_by_agent(flows, pending, request, input, shell, scope)) {
                 return std::move(*by_agent);
               }
               auto pod = flows.running_pod(request.computer_id, scope);
               if (!pod) return OpResult::failed(pod.error());
               CommandScene scene{pod.value().name, shell,
                                  pod.value().workspace.empty() ? "/" : pod.value().workspace};
               const EmitOutput emit = [this, &pending](vc_stream stream, std::string_view bytes) {
                 return registry_.emit_waiting(pending, stream, bytes.data(), bytes.size()) ==
                        VC_OK;
               };
               return run_command_by_api_exec(*calls_, flows, scene, request, input, emit, scope);
             });
}

std::optional<OpResult> KubernetesBackend::run_command_by_agent(
    ComputerFlows& flows, const sdk::Pending& pending, const sdk::ExecRequest& request,
    const std::string& input, const std::string& shell, sdk::CancelScope& scope) {
  if (!agents_) return std::nullopt;
  const std::string& id = request.computer_id;
  // Called on the API thread; a host that is not taking output answers VC_E_BACKPRESSURE and
  // the session holds the bytes (the lane's completion follows every emit).
  agent_channel::ExecOutput::Emit emit = [this, pending](vc_stream stream,
                                                         std::string_view bytes) {
    return registry_.emit(pending, stream, bytes.data(), bytes.size());
  };
  auto result = agents_->run_command(
      id, [&] { return flows.running_pod(id, scope); }, shell, request, input, std::move(emit),
      scope);
  if (result && result->status == VC_E_UNAVAILABLE && result->document.is_object() &&
      result->document.value("code", std::string()) == kExecStreamLostCode) {
    return conclude_lost_command(flows, id,
                                 sdk::OpFailure{result->status, result->message, result->document});
  }
  return result;
}

vc_status KubernetesBackend::wait_for_death(sdk::ComputerRequest request, const vc_op* op) {
  const std::string id = request.computer_id;
  // A lane of its own: the watch must not hold up the computer's commands.
  static std::atomic<std::uint64_t> watches{0};
  const std::string lane = "death:" + id + ":" + std::to_string(++watches);
  return run(op, lane, [this, id](ComputerFlows&, const sdk::Pending&, sdk::CancelScope& scope) {
    return watch_for_death(id, scope);
  });
}

OpResult KubernetesBackend::watch_for_death(const std::string& computer_id,
                                            sdk::CancelScope& scope) {
  const std::string name = computer_object_name(computer_id);
  while (!scope.cancelled()) {
    const std::uint64_t generation = stop_generation(computer_id);
    std::optional<PodDeath> death;
    auto watched = calls_->watch_pod(
        name, kDeathWatchSpan,
        [&](const json* pod) {
          death = pod == nullptr ? PodDeath{std::nullopt, "the pod was deleted"} : pod_death(*pod);
          return death.has_value();
        },
        scope);
    if (!watched) {
      const ApiErrorKind kind = watched.error().kind;
      if (kind == ApiErrorKind::cancelled) return OpResult::cancelled();
      if (kind != ApiErrorKind::timeout) {
        // The API went away for a moment (restarted, overloaded): look again shortly.
        log_.warn("Watching the pod of " + computer_id + " failed: " + watched.error().message);
        std::this_thread::sleep_for(std::chrono::seconds(2));
      }
      continue;
    }
    if (!death) continue;
    if (stopped_by_us(computer_id, generation)) {
      // Restarted, reset or removed on request: not a death. Wait until that is over (a removed
      // computer stays so until it is created again), then watch the new pod.
      while (!scope.cancelled() && stopped_by_us(computer_id, stop_generation(computer_id))) {
        std::this_thread::sleep_for(kOwnStopPoll);
      }
      continue;
    }
    json result = {{"reason", death->reason}};
    if (death->exit_code) result["exit_code"] = *death->exit_code;
    return OpResult::ok(std::move(result));
  }
  return OpResult::cancelled();
}

vc_status KubernetesBackend::get_desktop_environment(sdk::ComputerRequest request,
                                                     const vc_op* op) {
  return run(op, computer_lane(request.computer_id),
             [id = request.computer_id](ComputerFlows& flows, const sdk::Pending&,
                                        sdk::CancelScope& scope) {
               return flows.get_desktop_environment(id, scope);
             });
}

vc_status KubernetesBackend::set_desktop_environment(sdk::ToggleRequest request,
                                                     const vc_op* op) {
  return run(op, computer_lane(request.computer_id),
             [request](ComputerFlows& flows, const sdk::Pending&, sdk::CancelScope& scope) {
               return flows.set_desktop_environment(request.computer_id, request.enabled, scope);
             });
}

vc_status KubernetesBackend::desktop_action(sdk::DesktopActionRequest request, const vc_op* op) {
  const std::string id = request.computer_id;
  nlohmann::json action = std::move(request.action_document);
  const auto deadline = agent_channel::desktop_action_deadline(action);
  return run(op, desktop_lane(id),
             [this, id, action = std::move(action), deadline](
                 ComputerFlows& flows, const sdk::Pending&, sdk::CancelScope& scope) mutable {
               if (!agents_) {
                 return OpResult::error(VC_E_UNSUPPORTED,
                                        "This connection to the cluster has no exec streams, "
                                        "so the desktop of " + id + " cannot be driven.");
               }
               return agents_->desktop_action(
                   id, [&] { return flows.running_pod(id, scope); }, std::move(action), deadline,
                   scope);
             });
}

vc_status KubernetesBackend::tool_instructions(sdk::ToolInstructionsRequest request,
                                               const vc_op* op) {
  return registry_.complete_now(
      op, OpResult::ok({{"instructions",
                         instructions_text(request.shell, request.default_timeout_s)}}));
}

}  // namespace vc::kubernetes
