// container_backend.h — one backend instance: the vc_backend handed to the host, and the
// dispatch of each operation onto the plugin's private EngineLoop.
//
// Engine-neutral: the engine's particulars come from the EngineProfile the plugin passes in
// (docker_profile() for the Docker plugin), so a Podman plugin reuses all of this.
//
// Threading. Op functions, cancel() and destroy() are called on the host's loop thread and
// never block: the SDK's op table has checked the request (a malformed one completes at once
// with VC_E_INVALID_ARGUMENT and a message naming the field); each op function accepts the op
// and posts the work to the EngineLoop, whose thread runs every flow and calls op->complete(). Operations on one
// computer run in order: execs in one lane, lifecycle operations (create, attach, restart,
// remove, reset, network) in another; different computers run in parallel.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>
#include <vc-backend-1/cpp/host_log.h>
#include <vc-backend-1/cpp/op_registry.h>
#include <vc-backend-1/cpp/requests.h>
#include <vc-backend-1/vc_sdk.h>
#include <vc_engine/engine_client.h>
#include <vc_engine/engine_loop.h>

#include "backend_context.h"
#include "engine_launcher.h"
#include "engine_profile.h"
#include "lifecycle_flows.h"

namespace vc::container {

// How a plugin describes its engine to the shared backend.
struct BackendIdentity {
  const EngineProfile* profile = nullptr;
  const char* address_option = nullptr;   // "docker-host"
  // Used when the options name no address: "unix:///var/run/docker.sock", or what the
  // plugin discovered at create time (Podman).
  std::string default_address;
  // Starts the engine at the first validate when set (engine_launcher.h); owned by the backend.
  std::unique_ptr<EngineLauncher> launcher;
};

// The operations, called through the op table the SDK generates from this class
// (vc-backend-1/cpp/backend_ops.h), which has parsed and checked each request.
class ContainerBackend {
 public:
  // [host loop] create_backend(): parses the options (no I/O) and starts the EngineLoop. On
  // failure returns an error status and sets `error`; nothing was started then.
  static vc_status open(const vc_host_services* host, std::string_view config_json,
                        BackendIdentity identity, vc_backend** out_backend, std::string& error);

  // The operations, one per slot of vc_backend_ops. [host loop], never block.
  vc_status validate(sdk::ValidateRequest request, const vc_op* op);
  vc_status ensure_image(sdk::EnsureImageRequest request, const vc_op* op);
  vc_status create_computer(sdk::CreateRequest request, const vc_op* op);
  vc_status attach(sdk::AttachRequest request, const vc_op* op);
  vc_status list(sdk::ListRequest request, const vc_op* op);
  vc_status restart(sdk::ComputerRequest request, const vc_op* op);
  vc_status remove(sdk::ComputerRequest request, const vc_op* op);
  vc_status factory_reset(sdk::ComputerRequest request, const vc_op* op);
  vc_status set_network_access(sdk::ToggleRequest request, const vc_op* op);
  vc_status get_desktop_environment(sdk::ComputerRequest request, const vc_op* op);
  vc_status set_desktop_environment(sdk::ToggleRequest request, const vc_op* op);
  vc_status exec(sdk::ExecRequest request, std::string_view stdin_bytes, const vc_op* op);
  vc_status wait_for_death(sdk::ComputerRequest request, const vc_op* op);
  vc_status tool_instructions(sdk::ToolInstructionsRequest request, const vc_op* op);
  // The desktop-control extension's one operation (ext/vc_backend_desktop_control.h).
  vc_status desktop_action(sdk::DesktopActionRequest request, const vc_op* op);
  // The checkpoints extension (ext/vc_backend_checkpoints.h), in the computer's lifecycle lane
  // (a fork in its source's).
  vc_status create_checkpoint(sdk::CheckpointRequest request, const vc_op* op);
  vc_status list_checkpoints(sdk::ComputerRequest request, const vc_op* op);
  vc_status restore_checkpoint(sdk::CheckpointRequest request, const vc_op* op);
  vc_status fork_checkpoint(sdk::ForkRequest request, const vc_op* op);
  vc_status delete_checkpoint(sdk::CheckpointRequest request, const vc_op* op);
  // The processes extension (ext/vc_backend_processes.h): outside the computer's lanes
  // (process_calls.h).
  vc_status start_process(sdk::ProcessStartRequest request, const vc_op* op);
  vc_status read_process(sdk::ProcessReadRequest request, const vc_op* op);
  vc_status write_process(sdk::ProcessWriteRequest request, const vc_op* op);
  vc_status kill_process(sdk::ProcessKillRequest request, const vc_op* op);
  vc_status list_processes(sdk::ComputerRequest request, const vc_op* op);

  // [host loop] ops->cancel().
  void cancel(const vc_op* op);
  // [host loop] ops->destroy(): lets the process-group kills under way finish (at most 1 s),
  // stops the EngineLoop (joining its thread), then deletes this.
  void destroy();

  const sdk::HostLog& log() const { return log_; }

 private:
  using Pending = std::shared_ptr<sdk::PendingOp>;
  using Flow = std::function<void(FlowScope, Record, Callback<nlohmann::json>)>;

  ContainerBackend(const vc_host_services* host, BackendIdentity identity,
                   BackendOptions options);
  ~ContainerBackend();

  // Accepts the op and runs `task` on the EngineLoop.
  vc_status accept(const vc_op* op, std::function<void(const Pending&)> task);
  // Accepts the op and runs `flow` in the computer's lifecycle lane.
  vc_status run_in_lifecycle_lane(const vc_op* op, std::string computer_id, Flow flow);
  // Accepts the op and runs one process call in the computer; `agent_request` is built on the
  // EngineLoop from the computer's record (its shell).
  vc_status run_process_op(const vc_op* op, std::string computer_id,
                           std::function<nlohmann::json(const ComputerRecord&)> agent_request);
  // Hands what root made in the computer's read-write mounts to their owner (docs/mounts.md),
  // then runs `then`; at once when there is nothing to hand over. EngineLoop thread.
  void hand_over_mount_files(const Record& record, std::function<void()> then);
  // Completes with what a flow yielded.
  void complete(const Pending& pending, Expected<nlohmann::json> outcome);

  vc_backend handle_{};
  sdk::HostLog log_;
  const EngineProfile& profile_;
  std::unique_ptr<engine::EngineLoop> loop_;
  std::unique_ptr<engine::EngineClient> client_;
  std::unique_ptr<BackendContext> ctx_;
  std::unique_ptr<sdk::OpRegistry> registry_;  // cancel hooks run on the EngineLoop
  std::optional<nlohmann::json> validated_;  // EngineLoop thread: the first successful probe
  std::unique_ptr<EngineLauncher> launcher_;  // null unless the plugin may start its engine
  bool launched_ = false;                     // EngineLoop thread
};

// What every container backend offers (the descriptor's capability bits).
inline constexpr vc_caps kContainerBackendCapabilities =
    VC_CAP_ISOLATED | VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_FACTORY_RESET |
    VC_CAP_NETWORK_ACCESS | VC_CAP_DESKTOP | VC_CAP_EXEC_STDIN | VC_CAP_WAIT_FOR_DEATH |
    VC_CAP_KILLS_PROCESS_TREE | VC_CAP_IMAGES;

}  // namespace vc::container
