// container_backend.cpp — request checks on the host's thread, flows on the EngineLoop.
#include "container_backend.h"

#include <chrono>
#include <future>
#include <utility>

#include <vc-backend-1/cpp/backend_ops.h>
#include <vc_agent_channel/process_call.h>

#include "checkpoint_flows.h"
#include "command_dispatch.h"
#include "computer_info.h"
#include "computer_naming.h"
#include "container_exit_watch.h"
#include "helper_exec.h"
#include "host_mounts.h"
#include "computer_agents.h"
#include "image_ensure.h"
#include "image_instructions.h"
#include "process_calls.h"

namespace vc::container {
namespace {

// How long destroy() lets process-group kills under way finish (step 2 of destroy()): one
// inspect on this machine's engine, a few execs in the computer otherwise; well inside the
// host's shutdown grace.
constexpr std::chrono::milliseconds kShutdownKillGrace{1000};

}  // namespace

// --- instance ------------------------------------------------------------------------------

vc_status ContainerBackend::open(const vc_host_services* host, std::string_view config_json,
                                 BackendIdentity identity, vc_backend** out_backend,
                                 std::string& error) {
  auto config = nlohmann::json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  auto options = parse_backend_options(config, identity.address_option, identity.default_address,
                                       error);
  if (!options) {
    error = identity.profile->engine_name + ": " + error;
    return VC_E_INVALID_ARGUMENT;
  }
  const std::string engine_name = identity.profile->engine_name;
  auto* backend = new ContainerBackend(host, std::move(identity), std::move(*options));
  backend->log_.info(engine_name + " backend ready; engine at " + backend->ctx_->address +
                     ", image " + backend->ctx_->options.image +
                     (backend->launcher_ ? " (started by this plugin when it does not answer)"
                                         : ""));
  *out_backend = &backend->handle_;
  return VC_OK;
}

ContainerBackend::ContainerBackend(const vc_host_services* host, BackendIdentity identity,
                                   BackendOptions options)
    : handle_(sdk::make_backend_handle(this)),
      log_(host),
      profile_(*identity.profile),
      launcher_(std::move(identity.launcher)) {
  // The address was checked by parse_backend_options.
  auto address = engine::EngineAddress::parse(options.engine_address);
  loop_ = std::make_unique<engine::EngineLoop>();
  client_ = std::make_unique<engine::EngineClient>(*loop_, address.value());
  ctx_ = std::make_unique<BackendContext>(*loop_, *client_, profile_, std::move(options), log_);
  // A cancel hook touches flows, which live on the EngineLoop: it runs there, behind the task
  // that started the op (post() is FIFO), so the op's flow has always installed its hook, or
  // already finished, when the hook runs.
  registry_ = std::make_unique<sdk::OpRegistry>(
      [loop = loop_.get()](std::function<void()> run_hook) { loop->post(std::move(run_hook)); });
}

ContainerBackend::~ContainerBackend() = default;

void ContainerBackend::destroy() {
  // 1. Nothing reaches the host any more; stopping the loop below ends every flow.
  registry_->close(sdk::OpRegistry::PendingWork::leave);
  // 2. The kills the host's last cancels asked for (a cancelled desktop action's agent, a
  //    cancelled command) finish first, for at most kShutdownKillGrace: what they stop would
  //    otherwise go on acting in the computer after the server is gone.
  auto kills_done = std::make_shared<std::promise<void>>();
  auto kills_done_future = kills_done->get_future();
  if (loop_->post([this, kills_done] {
        if (ctx_->kills_in_flight == 0) return kills_done->set_value();
        ctx_->when_no_kills = [kills_done] { kills_done->set_value(); };
      })) {
    kills_done_future.wait_for(kShutdownKillGrace);
  }
  // 3. On the loop: no flow may start another engine call, and queued jobs are dropped.
  std::promise<void> quiet;
  auto quiet_future = quiet.get_future();
  if (loop_->post([this, &quiet] {
        ctx_->when_no_kills = nullptr;
        ctx_->shutting_down = true;
        ctx_->computers.clear();
        quiet.set_value();
      })) {
    quiet_future.wait();
  }
  // 4. Stop and join the loop: queued tasks run, calls in flight end with kCancelled, and an
  //    answer that arrived just before the stop is still delivered. Their callbacks may read
  //    the client (the host's last cancels start kills whose answers come now), so it and
  //    the context stay alive until the loop thread has ended; shutting_down keeps them from
  //    starting anything.
  loop_.reset();
  // 5. Nothing runs on the loop any more: the client can go.
  client_.reset();
  // 6. An engine this plugin started goes with it; the computers it ran stay in its storage.
  if (launcher_) launcher_->stop();
  delete this;
}

// --- helpers -------------------------------------------------------------------------------

vc_status ContainerBackend::accept(const vc_op* op, std::function<void(const Pending&)> task) {
  auto pending = registry_->accept(op);
  if (!loop_->post([pending, task = std::move(task)] { task(pending); })) {
    // Completed rather than rejected (deprecated since ABI 1.1): the user reads why.
    log_.error("refused an operation: the backend is shutting down");
    registry_->complete(pending, sdk::OpResult::error(VC_E_UNAVAILABLE,
                                                      "The " + profile_.engine_name +
                                                          " backend is shutting down; the "
                                                          "operation was not started."));
  }
  return VC_OK;
}

void ContainerBackend::complete(const Pending& pending, Expected<nlohmann::json> outcome) {
  registry_->complete(pending, outcome.ok() ? sdk::OpResult::ok(outcome.value())
                                            : sdk::OpResult::failed(outcome.error()));
}

vc_status ContainerBackend::run_in_lifecycle_lane(const vc_op* op, std::string computer_id,
                                                  Flow flow) {
  return accept(op, [this, computer_id = std::move(computer_id),
                     flow = std::move(flow)](const Pending& pending) {
    Record record = ctx_->computers.record(computer_id);
    auto scope = CancelScope::make();
    auto ticket = record->lifecycle.enqueue(
        [this, record, scope, pending, flow](std::function<void()> lane_done) {
          if (pending->cancel_requested()) {
            complete(pending, cancelled_failure());
            return lane_done();
          }
          flow(scope, record, [this, pending, lane_done](Expected<nlohmann::json> outcome) {
            complete(pending, std::move(outcome));
            lane_done();
          });
        });
    std::weak_ptr<ComputerRecord> weak_record = record;
    pending->on_cancel([this, weak_record, ticket, scope, pending] {
      auto queued_in = weak_record.lock();
      if (queued_in && queued_in->lifecycle.withdraw(ticket)) {
        return complete(pending, cancelled_failure());
      }
      scope->cancel();
    });
  });
}

// --- operations ----------------------------------------------------------------------------

vc_status ContainerBackend::validate(sdk::ValidateRequest, const vc_op* op) {
  return accept(op, [this](const Pending& pending) {
    if (validated_) return complete(pending, *validated_);
    if (launcher_ && !launched_) {
      std::string why;
      if (!launcher_->start(why)) {
        return complete(pending, OpFailure{VC_E_UNAVAILABLE,
                                           "Cannot start the " + profile_.engine_display_name +
                                               " at " + ctx_->address + ": " + why,
                                           error_details(profile_, "engine_start_failed", true)});
      }
      launched_ = true;
    }
    auto handle = client_->negotiate(
        [this, pending](engine::Result<engine::EngineInfo> info) {
          if (!info.ok()) {
            const auto& error = info.error();
            if (error.kind == engine::EngineErrorKind::kCancelled) {
              return complete(pending, cancelled_failure());
            }
            if (error.kind == engine::EngineErrorKind::kIncompatible) {
              return complete(pending, ctx_->engine_failure(error, "negotiate the API version"));
            }
            std::string reason = error.kind == engine::EngineErrorKind::kHttpStatus
                                     ? "it answered " + std::to_string(error.http_status) +
                                           ": " + engine_reason(error)
                                     : error.message;
            return complete(pending, OpFailure{VC_E_UNAVAILABLE,
                                               "Cannot connect to the " +
                                                   profile_.engine_display_name + " at " +
                                                   ctx_->address + ": " + reason + ". " +
                                                   profile_.daemon_hint,
                                               error_details(profile_, "engine_unreachable", true)});
          }
          if (info.value().is_podman != profile_.is_podman) {
            return complete(
                pending,
                OpFailure{VC_E_UNAVAILABLE,
                          "The engine at " + ctx_->address + " is " +
                              (info.value().is_podman ? "Podman " : "Docker ") +
                              info.value().version + ", not " +
                              (profile_.is_podman ? "Podman" : "Docker") + ". " +
                              profile_.wrong_engine_hint,
                          error_details(profile_, "wrong_engine", false)});
          }
          nlohmann::json result = {{"engine", profile_.engine_name},
                                   {"engine_version", info.value().version},
                                   {"address", ctx_->address}};
          log_.info("Connected to the " + profile_.engine_display_name + " " +
                    info.value().version + " at " + ctx_->address + " (API " +
                    info.value().api_version + ")");
          validated_ = result;
          complete(pending, result);
        },
        ctx_->call_deadlines());
    pending->on_cancel([handle] { handle.cancel(); });
  });
}

vc_status ContainerBackend::ensure_image(sdk::EnsureImageRequest request, const vc_op* op) {
  std::string image = request.image.value_or(ctx_->options.image);
  return accept(op, [this, image](const Pending& pending) {
    auto scope = CancelScope::make();
    pending->on_cancel([scope] { scope->cancel(); });
    run_ensure_image(
        *ctx_, scope, image,
        [this, pending](const nlohmann::json& event) {
          std::string text = event.dump();
          registry_->emit(pending, VC_STREAM_PROGRESS, text.data(), text.size());
        },
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
  });
}

vc_status ContainerBackend::create_computer(sdk::CreateRequest request, const vc_op* op) {
  CreateRequest create;
  create.spec.computer_id = request.computer_id;
  create.spec.image = request.image.value_or(ctx_->options.image);
  create.spec.temporary = request.temporary;
  create.spec.desktop_environment = request.desktop_environment;
  create.spec.workspace_directory = request.workspace_directory;
  create.spec.cpus = request.cpus ? request.cpus : ctx_->options.cpus;
  create.spec.memory_bytes = request.memory_bytes ? request.memory_bytes : ctx_->options.memory_bytes;
  create.spec.pids_limit = request.pids_limit ? request.pids_limit : ctx_->options.pids_limit;
  create.spec.harden = ctx_->options.harden;
  create.spec.overrides = ctx_->options.create_overrides;
  create.spec.mounts = ctx_->options.mounts;
  create.spec.mount_owner = ctx_->options.mount_owner;
  // The request's own mounts (ABI 1.3) come on top of --mount; a bad entry refuses the create.
  std::string refused_mounts;
  if (request.mounts) {
    auto asked = parse_mount_list(*request.mounts, refused_mounts);
    if (asked) {
      create.spec.mounts.insert(create.spec.mounts.end(), asked->begin(), asked->end());
      refused_mounts = check_computer_paths(create.spec.mounts);
    }
  }
  create.network_access = request.network_access;
  create.shell = request.shell;
  create.adopt_existing = request.adopt_existing;
  return run_in_lifecycle_lane(op, request.computer_id, [this, create, refused_mounts](
                                                           FlowScope scope, Record record,
                                                           Callback<nlohmann::json> done) {
    if (!refused_mounts.empty()) {
      return done(OpFailure{VC_E_INVALID_ARGUMENT, refused_mounts, nullptr});
    }
    run_create(*ctx_, std::move(scope), std::move(record), create, std::move(done));
  });
}

vc_status ContainerBackend::attach(sdk::AttachRequest request, const vc_op* op) {
  const std::string computer_id = request.computer_id;
  return run_in_lifecycle_lane(op, computer_id, [this, attach = std::move(request)](
                                                    FlowScope scope, Record record,
                                                    Callback<nlohmann::json> done) {
    run_attach(*ctx_, std::move(scope), std::move(record), attach, std::move(done));
  });
}

vc_status ContainerBackend::list(sdk::ListRequest, const vc_op* op) {
  return accept(op, [this](const Pending& pending) {
    auto scope = CancelScope::make();
    pending->on_cancel([scope] { scope->cancel(); });
    run_list(*ctx_, scope, [this, pending](Expected<nlohmann::json> outcome) {
      complete(pending, std::move(outcome));
    });
  });
}

vc_status ContainerBackend::restart(sdk::ComputerRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_restart(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::remove(sdk::ComputerRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_remove(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::factory_reset(sdk::ComputerRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_factory_reset(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::set_network_access(sdk::ToggleRequest request, const vc_op* op) {
  auto flow = [this, enabled = request.enabled](FlowScope scope, Record record,
                                                Callback<nlohmann::json> done) {
    run_set_network_access(*ctx_, std::move(scope), std::move(record), enabled, std::move(done));
  };
  return run_in_lifecycle_lane(op, request.computer_id, std::move(flow));
}

vc_status ContainerBackend::get_desktop_environment(sdk::ComputerRequest request,
                                                    const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_get_desktop_environment(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::set_desktop_environment(sdk::ToggleRequest request,
                                                    const vc_op* op) {
  auto flow = [this, enabled = request.enabled](FlowScope scope, Record record,
                                                Callback<nlohmann::json> done) {
    run_set_desktop_environment(*ctx_, std::move(scope), std::move(record), enabled,
                                std::move(done));
  };
  return run_in_lifecycle_lane(op, request.computer_id, std::move(flow));
}

vc_status ContainerBackend::exec(sdk::ExecRequest request, std::string_view stdin_bytes,
                                 const vc_op* op) {
  return accept(op, [this, exec_request = std::move(request),
                     stdin_copy = std::string(stdin_bytes)](
                        const Pending& pending) mutable {
    Record record = ctx_->computers.record(exec_request.computer_id);
    // The command is made when its turn comes; until then a cancel withdraws the job.
    auto command_slot = std::make_shared<std::weak_ptr<RunningCommand>>();
    auto ticket = record->execs.enqueue(
        [this, record, pending, command_slot, exec_request = std::move(exec_request),
         stdin_copy = std::move(stdin_copy)](std::function<void()> lane_done) mutable {
          if (pending->cancel_requested()) {
            complete(pending, cancelled_failure());
            return lane_done();
          }
          run_command(
              *ctx_, record, std::move(exec_request), std::move(stdin_copy),
              [this, pending](vc_stream stream, std::string_view bytes) {
                return registry_->emit(pending, stream, bytes.data(), bytes.size());
              },
              [this, pending, lane_done, record](Expected<nlohmann::json> outcome) {
                hand_over_mount_files(record, [this, pending, lane_done,
                                               outcome = std::move(outcome)]() mutable {
                  complete(pending, std::move(outcome));
                  lane_done();
                });
              },
              [pending] { return pending->cancel_requested(); },
              [command_slot](std::shared_ptr<RunningCommand> command) { *command_slot = command; });
        });
    std::weak_ptr<ComputerRecord> weak_record = record;
    pending->on_cancel([this, weak_record, ticket, command_slot, pending] {
      auto queued_in = weak_record.lock();
      if (queued_in && queued_in->execs.withdraw(ticket)) {
        return complete(pending, cancelled_failure());
      }
      if (auto command = command_slot->lock()) command->cancel();
    });
  });
}

void ContainerBackend::hand_over_mount_files(const Record& record, std::function<void()> then) {
  if (!record->mounts_known && !ctx_->shutting_down) {
    // A command of a computer this process never attached (the operator's `computers exec`):
    // its mounts are read from its labels once.
    return inspect_container(
        *ctx_, nullptr, container_name(record->computer_id),
        [this, record, then = std::move(then)](Expected<std::optional<nlohmann::json>> r) mutable {
          // Not readable now (the computer is gone or the engine away): the next command tries.
          if (!r.ok() || !r.value()) return then();
          record->mounts = mounts_from_label(label_of(*r.value(), labels::kMounts, ""));
          record->mount_owner = parse_mount_owner(label_of(*r.value(), labels::kMountOwner, ""))
                                    .value_or(ctx_->options.mount_owner);
          record->mounts_known = true;
          hand_over_mount_files(record, std::move(then));
        });
  }
  auto argv = owner_fixup_argv(record->mounts, record->mount_owner);
  if (argv.empty() || ctx_->shutting_down) return then();
  HelperExecRequest fixup;
  fixup.container = container_name(record->computer_id);
  fixup.argv = std::move(argv);
  fixup.user = "0";
  fixup.timeout = std::chrono::seconds(60);
  run_helper_exec(*ctx_, nullptr, std::move(fixup),
                  [this, computer_id = record->computer_id,
                   then = std::move(then)](Expected<HelperExecResult> result) {
                    // A stopped computer or a vanished host folder is not the command's failure:
                    // the next command hands over what is left.
                    if (!result.ok()) {
                      ctx_->log.warn("Handing the mounts' new files of " + computer_id +
                                     " to their owner failed: " + result.error().message);
                    }
                    then();
                  });
}

vc_status ContainerBackend::wait_for_death(sdk::ComputerRequest request, const vc_op* op) {
  return accept(op, [this, id = std::move(request.computer_id)](const Pending& pending) {
    auto watch = std::make_shared<ContainerExitWatch>(
        *ctx_, ctx_->computers.record(id),
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
    std::weak_ptr<ContainerExitWatch> weak = watch;
    pending->on_cancel([weak] {
      if (auto live = weak.lock()) live->cancel();
    });
    watch->start();
  });
}

vc_status ContainerBackend::tool_instructions(sdk::ToolInstructionsRequest request,
                                              const vc_op* op) {
  auto text = tool_instructions_for(ctx_->options.image, request.shell, request.default_timeout_s);
  nlohmann::json instructions = text ? nlohmann::json(*text) : nlohmann::json();
  return registry_->complete_now(op, sdk::OpResult::ok({{"instructions", instructions}}));
}

vc_status ContainerBackend::desktop_action(sdk::DesktopActionRequest request, const vc_op* op) {
  nlohmann::json agent_request = std::move(request.action_document);
  const auto deadline = agent_channel::desktop_action_deadline(agent_request);
  return accept(op, [this, computer_id = std::move(request.computer_id),
                     agent_request = std::move(agent_request),
                     deadline](const Pending& pending) mutable {
    if (pending->cancel_requested()) return complete(pending, cancelled_failure());
    Record record = ctx_->computers.record(computer_id);
    auto open_channel = desktop_channel_of(*ctx_, record);
    std::weak_ptr<agent_channel::DesktopChannel> channel = open_channel;
    const std::uint64_t ticket = open_channel->send(
        std::move(agent_request), deadline,
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
    pending->on_cancel([channel, ticket] {
      if (auto open = channel.lock()) open->withdraw(ticket);
    });
  });
}

vc_status ContainerBackend::run_process_op(
    const vc_op* op, std::string computer_id,
    std::function<nlohmann::json(const ComputerRecord&)> agent_request) {
  return accept(op, [this, computer_id = std::move(computer_id),
                     agent_request = std::move(agent_request)](const Pending& pending) {
    if (pending->cancel_requested()) return complete(pending, cancelled_failure());
    Record record = ctx_->computers.record(computer_id);
    auto call_slot = std::make_shared<std::weak_ptr<RunningCommand>>();
    run_process_call(
        *ctx_, record, agent_request(*record),
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); },
        [pending] { return pending->cancel_requested(); },
        [call_slot](std::shared_ptr<RunningCommand> call) { *call_slot = call; });
    pending->on_cancel([call_slot] {
      if (auto call = call_slot->lock()) call->cancel();
    });
  });
}

vc_status ContainerBackend::start_process(sdk::ProcessStartRequest request, const vc_op* op) {
  std::string id = request.computer_id;
  return run_process_op(op, std::move(id),
                        [request = std::move(request)](const ComputerRecord& record) {
                          return agent_channel::agent_start_request(request, record.shell);
                        });
}

vc_status ContainerBackend::read_process(sdk::ProcessReadRequest request, const vc_op* op) {
  std::string id = request.computer_id;
  return run_process_op(op, std::move(id), [request = std::move(request)](const ComputerRecord&) {
    return agent_channel::agent_read_request(request);
  });
}

vc_status ContainerBackend::write_process(sdk::ProcessWriteRequest request, const vc_op* op) {
  std::string id = request.computer_id;
  return run_process_op(op, std::move(id), [request = std::move(request)](const ComputerRecord&) {
    return agent_channel::agent_write_request(request);
  });
}

vc_status ContainerBackend::kill_process(sdk::ProcessKillRequest request, const vc_op* op) {
  std::string id = request.computer_id;
  return run_process_op(op, std::move(id), [request = std::move(request)](const ComputerRecord&) {
    return agent_channel::agent_kill_request(request);
  });
}

vc_status ContainerBackend::list_processes(sdk::ComputerRequest request, const vc_op* op) {
  return run_process_op(op, std::move(request.computer_id),
                        [](const ComputerRecord&) { return agent_channel::agent_list_request(); });
}

vc_status ContainerBackend::create_checkpoint(sdk::CheckpointRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this, name = request.name](
                                                            FlowScope scope, Record record,
                                                            Callback<nlohmann::json> done) {
    run_create_checkpoint(*ctx_, std::move(scope), std::move(record), name, std::move(done));
  });
}

vc_status ContainerBackend::list_checkpoints(sdk::ComputerRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this](FlowScope scope, Record record,
                                                               Callback<nlohmann::json> done) {
    run_list_checkpoints(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::restore_checkpoint(sdk::CheckpointRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this, name = request.name](
                                                            FlowScope scope, Record record,
                                                            Callback<nlohmann::json> done) {
    run_restore_checkpoint(*ctx_, std::move(scope), std::move(record), name, std::move(done));
  });
}

vc_status ContainerBackend::fork_checkpoint(sdk::ForkRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(
      op, request.computer_id,
      [this, target_id = request.new_computer_id, name = request.name](
          FlowScope scope, Record source, Callback<nlohmann::json> done) {
        Record target = ctx_->computers.record(target_id);
        run_fork_checkpoint(*ctx_, std::move(scope), std::move(source), std::move(target), name,
                            std::move(done));
      });
}

vc_status ContainerBackend::delete_checkpoint(sdk::CheckpointRequest request, const vc_op* op) {
  return run_in_lifecycle_lane(op, request.computer_id, [this, name = request.name](
                                                            FlowScope scope, Record record,
                                                            Callback<nlohmann::json> done) {
    run_delete_checkpoint(*ctx_, std::move(scope), std::move(record), name, std::move(done));
  });
}

void ContainerBackend::cancel(const vc_op* op) { registry_->cancel(op); }

}  // namespace vc::container
