// container_backend.cpp — request checks on the host's thread, flows on the EngineLoop.
#include "container_backend.h"

#include <algorithm>
#include <cstring>
#include <future>
#include <new>
#include <utility>

#include "computer_info.h"
#include "computer_naming.h"
#include "death_watch.h"
#include "desktop_channel.h"
#include "exec_request.h"
#include "command_dispatch.h"
#include "image_ensure.h"
#include "tool_instructions.h"

namespace vc::container {
namespace {

std::optional<bool> required_bool(const nlohmann::json& request, const char* key) {
  auto it = request.find(key);
  if (it == request.end() || !it->is_boolean()) return std::nullopt;
  return it->get<bool>();
}

std::optional<std::string> non_empty_string(const nlohmann::json& request, const char* key) {
  auto it = request.find(key);
  if (it == request.end() || !it->is_string() || it->get_ref<const std::string&>().empty()) {
    return std::nullopt;
  }
  return it->get<std::string>();
}

bool present(const nlohmann::json& request, const char* key) {
  auto it = request.find(key);
  return it != request.end() && !it->is_null();
}

}  // namespace

// --- instance ------------------------------------------------------------------------------

vc_status ContainerBackend::create(const vc_host_services* host, std::string_view config_json,
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
    : log_(host), profile_(*identity.profile), launcher_(std::move(identity.launcher)) {
  handle_.struct_size = sizeof(vc_backend);
  handle_.plugin_ctx = this;
  handle_.ops = &kContainerBackendOps;
  // The address was checked by parse_backend_options.
  auto address = engine::EngineAddress::parse(options.engine_address);
  loop_ = std::make_unique<engine::EngineLoop>();
  client_ = std::make_unique<engine::EngineClient>(*loop_, address.value());
  ctx_ = std::make_unique<BackendContext>(*loop_, *client_, profile_, std::move(options), log_);
  tracker_ = std::make_unique<OpTracker>(*loop_);
}

ContainerBackend::~ContainerBackend() = default;

void ContainerBackend::destroy() {
  // 1. Nothing reaches the host any more.
  tracker_->close();
  // 2. On the loop: no flow may start another engine call, and queued jobs are dropped.
  std::promise<void> quiet;
  auto quiet_future = quiet.get_future();
  if (loop_->post([this, &quiet] {
        ctx_->shutting_down = true;
        ctx_->computers.clear();
        quiet.set_value();
      })) {
    quiet_future.wait();
  }
  // 3. The client may go while calls are in flight; they end with kCancelled when the loop
  //    stops, and their callbacks see shutting_down.
  client_.reset();
  // 4. Stop and join the loop; the context its callbacks use is still alive.
  loop_.reset();
  // 5. An engine this plugin started goes with it; the computers it ran stay in its storage.
  if (launcher_) launcher_->stop();
  delete this;
}

void write_create_error(char* errbuf, size_t errbuf_cap, std::string_view message) {
  if (errbuf == nullptr || errbuf_cap == 0) return;
  size_t n = std::min(message.size(), errbuf_cap - 1);
  std::memcpy(errbuf, message.data(), n);
  errbuf[n] = '\0';
}

vc_status create_container_backend(const vc_host_services* host, const char* config_json,
                                   size_t config_len, BackendIdentity identity,
                                   vc_backend** out_backend, char* errbuf, size_t errbuf_cap) {
  auto write_error = [errbuf, errbuf_cap](std::string_view message) {
    write_create_error(errbuf, errbuf_cap, message);
  };
  if (host == nullptr || out_backend == nullptr || identity.profile == nullptr) {
    return VC_E_INVALID_ARGUMENT;
  }
  const std::string engine_name = identity.profile->engine_name;
  try {
    std::string error;
    std::string_view config = config_json ? std::string_view(config_json, config_len) : "{}";
    vc_status status = ContainerBackend::create(host, config, std::move(identity), out_backend,
                                                error);
    if (status != VC_OK) write_error(error);
    return status;
  } catch (const std::bad_alloc&) {
    write_error(engine_name + ": out of memory");
    return VC_E_NO_MEMORY;
  } catch (const std::exception& e) {
    write_error(engine_name + ": " + e.what());
    return VC_E_FAILED;
  }
}

// --- helpers -------------------------------------------------------------------------------

vc_status ContainerBackend::accept(const vc_op* op,
                                   std::function<void(const std::shared_ptr<PendingOp>&)> task) {
  auto pending = tracker_->accept(op);
  if (!loop_->post([pending, task = std::move(task)] { task(pending); })) {
    tracker_->forget(pending);
    log_.error("rejected an operation: the backend is shutting down");
    return VC_E_UNAVAILABLE;
  }
  return VC_OK;
}

vc_status ContainerBackend::complete_now(const vc_op* op, const OpOutcome& outcome) {
  tracker_->complete(tracker_->accept(op), outcome);
  return VC_OK;
}

void ContainerBackend::complete(const std::shared_ptr<PendingOp>& pending,
                                Expected<nlohmann::json> outcome) {
  tracker_->complete(pending, outcome.ok() ? OpOutcome::ok(outcome.value())
                                           : OpOutcome::failed(outcome.failure()));
}

vc_status ContainerBackend::run_in_lifecycle_lane(const vc_op* op, std::string computer_id,
                                                  Flow flow) {
  return accept(op, [this, computer_id = std::move(computer_id),
                     flow = std::move(flow)](const std::shared_ptr<PendingOp>& pending) {
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

std::optional<std::string> ContainerBackend::computer_id_of(const nlohmann::json& request,
                                                            const char* operation) const {
  auto id = request.find("computer_id");
  if (id == request.end() || !id->is_string() ||
      !is_valid_computer_id(id->get_ref<const std::string&>())) {
    reject(operation, kComputerIdRule);
    return std::nullopt;
  }
  return id->get<std::string>();
}

vc_status ContainerBackend::reject(const char* operation, std::string_view why) const {
  log_.warn(std::string(operation) + ": invalid request: " + std::string(why));
  rejection_ = "Invalid " + std::string(operation) + " request: " + std::string(why);
  return VC_E_INVALID_ARGUMENT;
}

vc_status ContainerBackend::settle_rejection(const vc_op* op, vc_status status) {
  std::optional<std::string> why = std::move(rejection_);
  rejection_.reset();
  if (status != VC_E_INVALID_ARGUMENT || !why) return status;
  return complete_now(op, OpOutcome::failed(OpFailure{VC_E_INVALID_ARGUMENT, *why, nullptr}));
}


// --- operations ----------------------------------------------------------------------------

vc_status ContainerBackend::validate(const nlohmann::json&, const vc_op* op) {
  return accept(op, [this](const std::shared_ptr<PendingOp>& pending) {
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

vc_status ContainerBackend::ensure_image(const nlohmann::json& request, const vc_op* op) {
  std::string image = ctx_->options.image;
  if (present(request, "image")) {
    auto given = non_empty_string(request, "image");
    if (!given) return reject("ensure_image", "image must be a non-empty string");
    image = *given;
  }
  return accept(op, [this, image](const std::shared_ptr<PendingOp>& pending) {
    auto scope = CancelScope::make();
    pending->on_cancel([scope] { scope->cancel(); });
    run_ensure_image(
        *ctx_, scope, image,
        [this, pending](const nlohmann::json& event) {
          std::string text = event.dump();
          tracker_->emit(pending, VC_STREAM_PROGRESS, text.data(), text.size());
        },
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
  });
}

vc_status ContainerBackend::create_computer(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "create");
  if (!id) return VC_E_INVALID_ARGUMENT;
  auto temporary = required_bool(request, "temporary");
  auto network = required_bool(request, "network_access");
  auto desktop = required_bool(request, "desktop_environment");
  if (!temporary || !network || !desktop) {
    return reject("create", "temporary, network_access and desktop_environment must be booleans");
  }
  auto workspace = non_empty_string(request, "workspace_directory");
  if (!workspace || workspace->front() != '/') {
    return reject("create", "workspace_directory must be an absolute path");
  }
  auto shell = non_empty_string(request, "shell");
  if (!shell) return reject("create", "shell must be a non-empty string");

  CreateRequest create;
  create.spec.computer_id = *id;
  create.spec.image = ctx_->options.image;
  if (present(request, "image")) {
    auto image = non_empty_string(request, "image");
    if (!image) return reject("create", "image must be a non-empty string");
    create.spec.image = *image;
  }
  create.spec.temporary = *temporary;
  create.spec.desktop_environment = *desktop;
  create.spec.workspace_directory = *workspace;
  create.spec.cpus = ctx_->options.cpus;
  create.spec.memory_bytes = ctx_->options.memory_bytes;
  create.spec.pids_limit = ctx_->options.pids_limit;
  create.spec.harden = ctx_->options.harden;
  create.spec.overrides = ctx_->options.create_overrides;
  if (auto resources = request.find("resources");
      resources != request.end() && !resources->is_null()) {
    if (!resources->is_object()) return reject("create", "resources must be an object");
    if (present(*resources, "cpus")) {
      const auto& cpus = (*resources)["cpus"];
      if (!cpus.is_number() || cpus.get<double>() <= 0) {
        return reject("create", "resources.cpus must be a positive number");
      }
      create.spec.cpus = cpus.get<double>();
    }
    if (present(*resources, "memory")) {
      const auto& memory = (*resources)["memory"];
      std::optional<std::int64_t> bytes;
      if (memory.is_number_unsigned()) bytes = memory.get<std::int64_t>();
      if (memory.is_string()) bytes = parse_memory_size(memory.get<std::string>());
      if (!bytes || *bytes < 1) return reject("create", "resources.memory must be a size such as 2g");
      create.spec.memory_bytes = bytes;
    }
    if (present(*resources, "pids_limit")) {
      const auto& pids = (*resources)["pids_limit"];
      if (!pids.is_number_integer() || pids.get<std::int64_t>() < 1) {
        return reject("create", "resources.pids_limit must be an integer >= 1");
      }
      create.spec.pids_limit = pids.get<std::int64_t>();
    }
  }
  create.network_access = *network;
  create.shell = *shell;
  return run_in_lifecycle_lane(op, *id, [this, create](FlowScope scope, Record record,
                                                        Callback<nlohmann::json> done) {
    run_create(*ctx_, std::move(scope), std::move(record), create, std::move(done));
  });
}

vc_status ContainerBackend::attach(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "attach");
  if (!id) return VC_E_INVALID_ARGUMENT;
  auto network = required_bool(request, "network_access");
  auto desktop = required_bool(request, "desktop_environment");
  auto shell = non_empty_string(request, "shell");
  if (!network || !desktop || !shell) {
    return reject("attach", "network_access and desktop_environment (booleans) and shell "
                            "(a non-empty string) are required");
  }
  AttachRequest attach{*id, *network, *desktop, *shell};
  return run_in_lifecycle_lane(op, *id, [this, attach](FlowScope scope, Record record,
                                                        Callback<nlohmann::json> done) {
    run_attach(*ctx_, std::move(scope), std::move(record), attach, std::move(done));
  });
}

vc_status ContainerBackend::list(const nlohmann::json&, const vc_op* op) {
  return accept(op, [this](const std::shared_ptr<PendingOp>& pending) {
    auto scope = CancelScope::make();
    pending->on_cancel([scope] { scope->cancel(); });
    run_list(*ctx_, scope,
             [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
  });
}

vc_status ContainerBackend::restart(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "restart");
  if (!id) return VC_E_INVALID_ARGUMENT;
  return run_in_lifecycle_lane(op, *id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_restart(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::remove(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "remove");
  if (!id) return VC_E_INVALID_ARGUMENT;
  return run_in_lifecycle_lane(op, *id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_remove(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::factory_reset(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "factory_reset");
  if (!id) return VC_E_INVALID_ARGUMENT;
  return run_in_lifecycle_lane(op, *id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_factory_reset(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::set_network_access(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "set_network_access");
  if (!id) return VC_E_INVALID_ARGUMENT;
  auto enabled = required_bool(request, "enabled");
  if (!enabled) return reject("set_network_access", "enabled must be a boolean");
  return run_in_lifecycle_lane(op, *id, [this, enabled = *enabled](FlowScope scope, Record record,
                                                                   Callback<nlohmann::json> done) {
    run_set_network_access(*ctx_, std::move(scope), std::move(record), enabled, std::move(done));
  });
}

vc_status ContainerBackend::get_desktop_environment(const nlohmann::json& request,
                                                    const vc_op* op) {
  auto id = computer_id_of(request, "get_desktop_environment");
  if (!id) return VC_E_INVALID_ARGUMENT;
  return run_in_lifecycle_lane(op, *id, [this](FlowScope scope, Record record,
                                               Callback<nlohmann::json> done) {
    run_get_desktop_environment(*ctx_, std::move(scope), std::move(record), std::move(done));
  });
}

vc_status ContainerBackend::set_desktop_environment(const nlohmann::json& request,
                                                    const vc_op* op) {
  auto id = computer_id_of(request, "set_desktop_environment");
  if (!id) return VC_E_INVALID_ARGUMENT;
  auto enabled = required_bool(request, "enabled");
  if (!enabled) return reject("set_desktop_environment", "enabled must be a boolean");
  return run_in_lifecycle_lane(op, *id, [this, enabled = *enabled](FlowScope scope, Record record,
                                                                   Callback<nlohmann::json> done) {
    run_set_desktop_environment(*ctx_, std::move(scope), std::move(record), enabled,
                                std::move(done));
  });
}

vc_status ContainerBackend::exec(const nlohmann::json& request, std::string_view stdin_bytes,
                                 const vc_op* op) {
  std::string error;
  auto parsed = parse_exec_request(request, error);
  if (!parsed) return reject("exec", error);
  return accept(op, [this, exec_request = std::move(*parsed),
                     stdin_copy = std::string(stdin_bytes)](
                        const std::shared_ptr<PendingOp>& pending) mutable {
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
                return tracker_->emit(pending, stream, bytes.data(), bytes.size());
              },
              [this, pending, lane_done](Expected<nlohmann::json> outcome) {
                complete(pending, std::move(outcome));
                lane_done();
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

vc_status ContainerBackend::wait_for_death(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "wait_for_death");
  if (!id) return VC_E_INVALID_ARGUMENT;
  return accept(op, [this, id = *id](const std::shared_ptr<PendingOp>& pending) {
    auto watch = std::make_shared<DeathWatch>(
        *ctx_, ctx_->computers.record(id),
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
    std::weak_ptr<DeathWatch> weak = watch;
    pending->on_cancel([weak] {
      if (auto live = weak.lock()) live->cancel();
    });
    watch->start();
  });
}

vc_status ContainerBackend::tool_instructions(const nlohmann::json& request, const vc_op* op) {
  auto shell = non_empty_string(request, "shell");
  auto timeout = request.find("default_timeout_s");
  if (!shell || timeout == request.end() || !timeout->is_number_integer() ||
      timeout->get<std::int64_t>() < 1) {
    return reject("tool_instructions",
                  "shell (a non-empty string) and default_timeout_s (an integer >= 1) are required");
  }
  auto text = tool_instructions_for(ctx_->options.image, *shell, timeout->get<std::int64_t>());
  return complete_now(op, OpOutcome::ok(nlohmann::json{
                              {"instructions", text ? nlohmann::json(*text) : nlohmann::json()}}));
}

vc_status ContainerBackend::desktop_action(const nlohmann::json& request, const vc_op* op) {
  auto id = computer_id_of(request, "desktop_action");
  if (!id) return VC_E_INVALID_ARGUMENT;
  auto action = request.find("action");
  if (action == request.end() || !action->is_string() || action->get<std::string>().empty()) {
    return reject("desktop_action", "action must be a non-empty string");
  }
  nlohmann::json agent_request = request;
  agent_request.erase("computer_id");
  const auto deadline = desktop_action_deadline(agent_request);
  return accept(op, [this, computer_id = *id, agent_request = std::move(agent_request),
                     deadline](const std::shared_ptr<PendingOp>& pending) mutable {
    if (pending->cancel_requested()) return complete(pending, cancelled_failure());
    Record record = ctx_->computers.record(computer_id);
    if (!record->desktop_channel) {
      record->desktop_channel = std::make_shared<DesktopChannel>(*ctx_, computer_id);
    }
    std::weak_ptr<DesktopChannel> channel = record->desktop_channel;
    const std::uint64_t ticket = record->desktop_channel->send(
        std::move(agent_request), deadline,
        [this, pending](Expected<nlohmann::json> outcome) { complete(pending, std::move(outcome)); });
    pending->on_cancel([channel, ticket] {
      if (auto open = channel.lock()) open->withdraw(ticket);
    });
  });
}

void ContainerBackend::cancel(const vc_op* op) { tracker_->cancel(op); }

}  // namespace vc::container
