// computer_lifecycle.cpp — chains of backend ops for computers named by id.
#include "computers/computer_lifecycle.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <vc-backend-1/cpp/computer_id.h>
#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

#include "backend_proxy/backend.h"
#include "computers/operation_documents.h"

namespace vc::computers {
namespace {

using Step = std::function<void(Expected<Json>)>;
using InfoDone = std::function<void(Expected<ComputerInfo>)>;

Failure cancelled_chain() { return Failure{VC_E_CANCELLED, "The operation was cancelled."}; }

Failure not_found(const std::string& computer_id) {
  return Failure{VC_E_NOT_FOUND, "Computer '" + computer_id + "' was not found."};
}

struct StepOptions {
  std::function<void(vc_stream, std::string_view)> on_emit;
  uint64_t output_limit = 0;
  std::string stdin_bytes;
};

// An op's VC_STREAM_PROGRESS events, handed to `progress` (which may be empty).
StepOptions reporting_progress(ProgressFn progress) {
  StepOptions options;
  options.on_emit = [progress = std::move(progress)](vc_stream stream, std::string_view bytes) {
    if (stream != VC_STREAM_PROGRESS || !progress) return;
    if (auto event = read_progress_event(bytes)) {
      progress(event->progress, event->total, event->message);
    }
  };
  return options;
}

// A sequence of backend ops run one after another. Cancelling it cancels the op that runs and
// keeps the next one from starting.
class OpChain : public Cancellable, public std::enable_shared_from_this<OpChain> {
 public:
  explicit OpChain(std::shared_ptr<backend_proxy::Backend> backend) : backend_(std::move(backend)) {}


  // Runs `op`; `next` hears its result. A cancelled chain answers VC_E_CANCELLED instead.
  void run(backend_proxy::Operation op, const Json& request, Step next, StepOptions options = StepOptions()) {
    backend_proxy::OpCallbacks callbacks;
    callbacks.output_limit = options.output_limit;
    callbacks.on_emit = options.on_emit ? std::move(options.on_emit)
                                        : [](vc_stream, std::string_view) {};
    callbacks.on_complete = [self = shared_from_this(), next = std::move(next)](Expected<Json> r) {
      self->running_.reset();
      if (self->cancelled_ && r.ok()) return next(cancelled_chain());
      next(std::move(r));
    };
    if (cancelled_) {
      // Only reached from a completion callback, so `next` still runs on a later loop turn
      // than the public call that started the chain.
      return callbacks.on_complete(cancelled_chain());
    }
    running_ = backend_->start(op, request, std::move(callbacks), options.stdin_bytes);
  }

  void cancel() override {
    cancelled_ = true;
    if (auto running = running_) running->cancel();
  }

 private:
  std::shared_ptr<backend_proxy::Backend> backend_;
  CancelHandle running_;
  bool cancelled_ = false;
};

// A handle for work done in steps (waiting for the computer, then changing it): cancelling it
// cancels whichever step runs, and a step started after the cancel sees cancelled().
class StepSequence : public Cancellable {
 public:
  void follow(CancelHandle step) {
    current_ = std::move(step);
    if (cancelled_ && current_) current_->cancel();
  }
  bool following() const { return current_ != nullptr; }
  bool cancelled() const { return cancelled_; }
  void cancel() override {
    cancelled_ = true;
    if (auto step = current_) step->cancel();
  }

 private:
  CancelHandle current_;
  bool cancelled_ = false;
};

Expected<ComputerInfo> info_for(const Expected<Json>& result, const std::string& computer_id) {
  if (!result.ok()) return result.error();
  auto info = read_computer_info(result.value());
  if (!info.ok()) return info;
  if (info.value().computer_id != computer_id) {
    return Failure{VC_E_FAILED, "The backend returned computer '" + info.value().computer_id +
                                    "' when asked for '" + computer_id + "'."};
  }
  return info;
}

Expected<std::vector<ComputerInfo>> read_list(const Expected<Json>& result) {
  if (!result.ok()) return result.error();
  const Json& document = result.value();
  auto computers = document.find("computers");
  if (!document.is_object() || computers == document.end() || !computers->is_array()) {
    return Failure{VC_E_FAILED, "The backend returned an invalid computer list."};
  }
  std::vector<ComputerInfo> listed;
  for (const auto& entry : *computers) {
    auto info = read_computer_info(entry);
    if (!info.ok()) return info.error();
    listed.push_back(std::move(info).value());
  }
  std::sort(listed.begin(), listed.end(), [](const ComputerInfo& a, const ComputerInfo& b) {
    return a.computer_id < b.computer_id;
  });
  return listed;
}

std::optional<ComputerInfo> find_computer(const std::vector<ComputerInfo>& computers,
                                          const std::string& computer_id) {
  for (const auto& computer : computers) {
    if (computer.computer_id == computer_id) return computer;
  }
  return std::nullopt;
}

}  // namespace

struct ComputerLifecycle::State : std::enable_shared_from_this<State> {
  std::shared_ptr<backend_proxy::Backend> backend;
  ComputerSettings defaults;
  ComputerRegistry* registry = nullptr;
  std::shared_ptr<BackendValidation> validation;

  std::shared_ptr<OpChain> chain() { return std::make_shared<OpChain>(backend); }

  // Validates the backend the first time, then continues with `next`.
  void validated_then(const std::shared_ptr<OpChain>& chain, std::function<void()> next,
                      std::function<void(Failure)> fail) {
    // Every `next` starts a backend op, so `done` still never runs before the call returns.
    if (validation->validated()) return next();
    chain->run(backend_proxy::Operation::validate, Json::object(),
               [self = shared_from_this(), next = std::move(next),
                fail = std::move(fail)](Expected<Json> result) {
                 if (!result.ok()) return fail(result.error());
                 self->validation->mark_validated();
                 next();
               });
  }

  bool owns_server_computer(const std::string& computer_id) const {
    return registry != nullptr && registry->settings().computer_id == computer_id;
  }

  // Validates (once), then runs change(): restart, factory reset, network access.
  CancelHandle validated_change(backend_proxy::Operation op, Json request, std::string computer_id,
                                InfoDone done) {
    auto running = chain();
    auto shared_done = std::make_shared<InfoDone>(std::move(done));
    validated_then(
        running,
        [self = shared_from_this(), running, op, request = std::move(request),
         computer_id = std::move(computer_id), shared_done] {
          self->change(running, op, request, computer_id,
                       [shared_done](Expected<ComputerInfo> info) { (*shared_done)(std::move(info)); });
        },
        [shared_done](Failure failure) { (*shared_done)(std::move(failure)); });
    return running;
  }

  Failure no_checkpoints() const {
    return Failure{VC_E_UNSUPPORTED, "The " + backend->info().name +
                                         " backend has no checkpoints: it cannot save or "
                                         "restore a computer's files."};
  }

  // Validates (once), then runs one op whose result `read` turns into the caller's value.
  template <class T>
  CancelHandle validated_op(backend_proxy::Operation op, Json request, ProgressFn progress,
                            std::function<Expected<T>(const Json&)> read,
                            std::function<void(Expected<T>)> done) {
    auto running = chain();
    auto shared_done = std::make_shared<std::function<void(Expected<T>)>>(std::move(done));
    validated_then(
        running,
        [running, op, request = std::move(request), progress = std::move(progress),
         read = std::move(read), shared_done] {
          running->run(
              op, request,
              [read, shared_done](Expected<Json> result) {
                if (!result.ok()) return (*shared_done)(result.error());
                (*shared_done)(read(result.value()));
              },
              reporting_progress(progress));
        },
        [shared_done](Failure failure) { (*shared_done)(std::move(failure)); });
    return running;
  }

  // Runs `operation` on the computer `target` names: at once for an id; for nullopt (the
  // server's own computer), once the registry has acquired it. `done` hears a refusal or
  // failure of the acquisition, else what `operation` reports.
  template <class T>
  CancelHandle on_computer(
      const std::optional<std::string>& target,
      std::function<CancelHandle(const std::string&, std::function<void(Expected<T>)>)> operation,
      std::function<void(Expected<T>)> done) {
    if (target) return operation(*target, std::move(done));
    auto steps = std::make_shared<StepSequence>();
    if (registry == nullptr) {
      done(Failure{VC_E_INVALID_ARGUMENT,
                   "This server has no computer of its own: name the computer."});
      return steps;
    }
    auto shared_done = std::make_shared<std::function<void(Expected<T>)>>(std::move(done));
    // acquire() may answer before it returns; the operation it then starts is what a cancel
    // stops.
    auto waiting = registry->acquire(
        nullptr, [self = shared_from_this(), steps, operation = std::move(operation),
                  shared_done](Expected<ComputerInfo> ready) {
          if (!ready) return (*shared_done)(ready.error());
          if (steps->cancelled()) return (*shared_done)(cancelled_chain());
          steps->follow(operation(self->registry->settings().computer_id,
                                  // Keeps the handle, which callers may hold weakly, alive
                                  // while the operation runs.
                                  [shared_done, steps](Expected<T> outcome) {
                                    (*shared_done)(std::move(outcome));
                                  }));
        });
    if (!steps->following()) steps->follow(std::move(waiting));
    return steps;
  }

  // Runs a computer-changing op, inside the registry's maintenance window when it concerns
  // the server's own computer.
  void change(const std::shared_ptr<OpChain>& chain, backend_proxy::Operation op, const Json& request,
              const std::string& computer_id, InfoDone done) {
    const bool maintained = owns_server_computer(computer_id);
    if (maintained) registry->begin_maintenance();
    chain->run(op, request,
               [self = shared_from_this(), maintained, computer_id,
                done = std::move(done)](Expected<Json> result) {
                 auto info = info_for(result, computer_id);
                 if (maintained) {
                   self->registry->end_maintenance(
                       info.ok() ? Expected<std::optional<ComputerInfo>>(info.value())
                                 : Expected<std::optional<ComputerInfo>>(info.error()));
                 }
                 done(std::move(info));
               });
  }
};

ComputerLifecycle::ComputerLifecycle(std::shared_ptr<backend_proxy::Backend> backend,
                                     ComputerSettings defaults, ComputerRegistry* registry)
    : state_(std::make_shared<State>()) {
  state_->backend = std::move(backend);
  state_->defaults = std::move(defaults);
  state_->registry = registry;
  state_->validation = registry != nullptr ? registry->backend_validation()
                                           : std::make_shared<BackendValidation>();
}

ComputerLifecycle::~ComputerLifecycle() = default;

const std::string& ComputerLifecycle::backend_name() const { return state_->backend->info().name; }

CancelHandle ComputerLifecycle::list(
    std::function<void(Expected<std::vector<ComputerInfo>>)> done) {
  auto chain = state_->chain();
  auto shared_done = std::make_shared<decltype(done)>(std::move(done));
  state_->validated_then(
      chain,
      [chain, shared_done] {
        chain->run(backend_proxy::Operation::list, Json::object(),
                   [shared_done](Expected<Json> result) { (*shared_done)(read_list(result)); });
      },
      [shared_done](Failure failure) { (*shared_done)(std::move(failure)); });
  return chain;
}

CancelHandle ComputerLifecycle::prepare_image(ProgressFn progress,
                                              std::function<void(Expected<std::string>)> done) {
  auto chain = state_->chain();
  auto shared_done = std::make_shared<std::function<void(Expected<std::string>)>>(std::move(done));
  const StepOptions with_progress = reporting_progress(progress);
  state_->validated_then(
      chain,
      [chain, shared_done, with_progress] {
        chain->run(
            backend_proxy::Operation::ensure_image, Json::object(),
            [shared_done](Expected<Json> result) {
              if (!result.ok()) return (*shared_done)(result.error());
              const Json& document = result.value();
              auto action = document.is_object() ? document.find("action") : document.end();
              (*shared_done)(document.is_object() && action != document.end() &&
                                     action->is_string()
                                 ? action->get<std::string>()
                                 : std::string("present"));
            },
            with_progress);
      },
      [shared_done](Failure failure) { (*shared_done)(std::move(failure)); });
  return chain;
}

CancelHandle ComputerLifecycle::create(CreateSpec spec, ProgressFn progress, InfoDone done) {
  auto chain = state_->chain();
  auto state = state_;
  auto shared_done = std::make_shared<InfoDone>(std::move(done));
  auto fail = [shared_done](Failure failure) { (*shared_done)(std::move(failure)); };
  const StepOptions with_progress = reporting_progress(progress);
  auto create_step = [chain, state, spec, shared_done, with_progress] {
    ComputerSettings settings = state->defaults;
    settings.computer_id = spec.computer_id;
    settings.network_access = spec.network_access;
    settings.desktop_environment = spec.desktop_environment;
    Json request = create_request(settings);
    if (spec.mounts.is_array() && !spec.mounts.empty()) request["mounts"] = spec.mounts;
    chain->run(
        backend_proxy::Operation::create, std::move(request),
        [shared_done, id = spec.computer_id](Expected<Json> r) { (*shared_done)(info_for(r, id)); },
        with_progress);
  };
  auto image_step = [chain, shared_done, fail, create_step, with_progress] {
    chain->run(
        backend_proxy::Operation::ensure_image, Json::object(),
        [fail, create_step](Expected<Json> result) {
          if (image_step_failed(result)) return fail(result.error());
          create_step();
        },
        with_progress);
  };
  // Creating must not adopt an existing computer (the backend's create would), so look first.
  auto check_step = [chain, shared_done, fail, image_step, id = spec.computer_id] {
    chain->run(backend_proxy::Operation::list, Json::object(),
               [fail, image_step, id](Expected<Json> result) {
                 auto listed = read_list(result);
                 if (!listed.ok()) return fail(listed.error());
                 if (find_computer(listed.value(), id)) {
                   return fail(Failure{VC_E_ALREADY_EXISTS,
                                       "Computer '" + id + "' already exists."});
                 }
                 image_step();
               });
  };
  state_->validated_then(chain, check_step, fail);
  return chain;
}

CancelHandle ComputerLifecycle::restart(const std::string& computer_id, InfoDone done) {
  return state_->validated_change(backend_proxy::Operation::restart, computer_request(computer_id),
                                  computer_id, std::move(done));
}

CancelHandle ComputerLifecycle::factory_reset(const std::string& computer_id, InfoDone done) {
  return state_->validated_change(backend_proxy::Operation::factory_reset,
                                  computer_request(computer_id), computer_id, std::move(done));
}

CancelHandle ComputerLifecycle::set_network_access(const std::string& computer_id, bool enabled,
                                                   InfoDone done) {
  Json request = computer_request(computer_id);
  request["enabled"] = enabled;
  return state_->validated_change(backend_proxy::Operation::set_network_access, request, computer_id,
                                  std::move(done));
}

CancelHandle ComputerLifecycle::set_desktop_environment(const std::string& computer_id,
                                                        bool enabled, InfoDone done) {
  Json request = computer_request(computer_id);
  request["enabled"] = enabled;
  return state_->validated_change(backend_proxy::Operation::set_desktop_environment, request,
                                  computer_id, std::move(done));
}

CancelHandle ComputerLifecycle::switch_server_computer(ComputerSwitch which, bool enabled,
                                                       InfoDone done) {
  auto steps = std::make_shared<StepSequence>();
  if (state_->registry == nullptr) {
    done(Failure{VC_E_INVALID_ARGUMENT, "This server has no computer of its own to switch."});
    return steps;
  }
  auto state = state_;
  auto shared_done = std::make_shared<InfoDone>(std::move(done));
  // acquire() may answer before it returns; the switch it then starts is what a cancel stops.
  auto waiting = state_->registry->acquire(
      nullptr, [state, steps, which, enabled, shared_done](Expected<ComputerInfo> ready) {
        if (!ready) return (*shared_done)(ready.error());
        if (steps->cancelled()) return (*shared_done)(cancelled_chain());
        const std::string& id = state->registry->settings().computer_id;
        Json request = computer_request(id);
        request["enabled"] = enabled;
        steps->follow(state->validated_change(which == ComputerSwitch::network_access
                                                  ? backend_proxy::Operation::set_network_access
                                                  : backend_proxy::Operation::set_desktop_environment,
                                              request, id,
                                              // Keeps the handle, which callers may hold weakly, alive
                                              // while the switch runs.
                                              [shared_done, steps](Expected<ComputerInfo> changed) {
                                                (*shared_done)(std::move(changed));
                                              }));
      });
  if (!steps->following()) steps->follow(std::move(waiting));
  return steps;
}

CancelHandle ComputerLifecycle::remove(const std::string& computer_id,
                                       std::function<void(Expected<bool>)> done) {
  auto chain = state_->chain();
  auto state = state_;
  auto shared_done = std::make_shared<std::function<void(Expected<bool>)>>(std::move(done));
  state_->validated_then(
      chain,
      [chain, state, computer_id, shared_done] {
        const bool maintained = state->owns_server_computer(computer_id);
        if (maintained) state->registry->begin_maintenance();
        chain->run(backend_proxy::Operation::remove, computer_request(computer_id),
                   [state, maintained, computer_id, shared_done](Expected<Json> result) {
                     Expected<bool> removed = Failure{};
                     if (!result.ok()) {
                       removed = result.error();
                     } else {
                       auto flag = result.value().find("removed");
                       if (flag == result.value().end() || !flag->is_boolean()) {
                         removed = Failure{VC_E_FAILED,
                                           "The backend returned an invalid remove result."};
                       } else if (!flag->get<bool>()) {
                         removed = not_found(computer_id);
                       } else {
                         removed = true;
                       }
                     }
                     if (maintained) {
                       // Gone either way unless the engine refused: then look again later.
                       state->registry->end_maintenance(
                           removed.ok() || removed.error().status == VC_E_NOT_FOUND
                               ? Expected<std::optional<ComputerInfo>>(std::nullopt)
                               : Expected<std::optional<ComputerInfo>>(removed.error()));
                     }
                     (*shared_done)(std::move(removed));
                   });
      },
      [shared_done](Failure failure) { (*shared_done)(std::move(failure)); });
  return chain;
}

namespace {

using OutcomeDone = std::function<void(Expected<CheckpointOutcome>)>;

// A request refused before any backend op: `done` hears why at once.
template <class T>
CancelHandle refuse_at_once(const std::function<void(Expected<T>)>& done, Failure failure) {
  done(std::move(failure));
  return std::make_shared<StepSequence>();
}

}  // namespace

bool ComputerLifecycle::offers_checkpoints() const { return state_->backend->offers_checkpoints(); }

CancelHandle ComputerLifecycle::create_checkpoint(const std::optional<std::string>& computer_id,
                                                  const std::string& name, ProgressFn progress,
                                                  OutcomeDone done) {
  if (!offers_checkpoints()) return refuse_at_once(done, state_->no_checkpoints());
  if (auto problem = checkpoint_name_problem(name)) {
    return refuse_at_once(done, Failure{VC_E_INVALID_ARGUMENT, *problem});
  }
  auto state = state_;
  return state_->on_computer<CheckpointOutcome>(
      computer_id,
      [state, name, progress](const std::string& id, OutcomeDone finished) {
        return state->validated_op<CheckpointOutcome>(
            backend_proxy::Operation::create_checkpoint, checkpoint_request(id, name), progress,
            [id](const Json& result) { return read_checkpoint_outcome(result, id, true); },
            std::move(finished));
      },
      std::move(done));
}

CancelHandle ComputerLifecycle::list_checkpoints(
    const std::optional<std::string>& computer_id,
    std::function<void(Expected<CheckpointListing>)> done) {
  if (!offers_checkpoints()) return refuse_at_once(done, state_->no_checkpoints());
  auto state = state_;
  return state_->on_computer<CheckpointListing>(
      computer_id,
      [state](const std::string& id, std::function<void(Expected<CheckpointListing>)> finished) {
        return state->validated_op<CheckpointListing>(
            backend_proxy::Operation::list_checkpoints, computer_request(id), nullptr,
            [id](const Json& result) { return read_checkpoint_listing(result, id); },
            std::move(finished));
      },
      std::move(done));
}

CancelHandle ComputerLifecycle::restore_checkpoint(const std::optional<std::string>& computer_id,
                                                   const std::string& name, ProgressFn progress,
                                                   OutcomeDone done) {
  if (!offers_checkpoints()) return refuse_at_once(done, state_->no_checkpoints());
  if (auto problem = checkpoint_name_problem(name)) {
    return refuse_at_once(done, Failure{VC_E_INVALID_ARGUMENT, *problem});
  }
  auto state = state_;
  return state_->on_computer<CheckpointOutcome>(
      computer_id,
      [state, name, progress](const std::string& id, OutcomeDone finished) {
        auto running = state->chain();
        auto shared_done = std::make_shared<OutcomeDone>(std::move(finished));
        state->validated_then(
            running,
            [state, running, id, name, progress, shared_done] {
              // The backend replaces the computer's files, perhaps the computer itself: for the
              // server's own computer that is planned, not a death (as a restart).
              const bool maintained = state->owns_server_computer(id);
              if (maintained) state->registry->begin_maintenance();
              running->run(
                  backend_proxy::Operation::restore_checkpoint, checkpoint_request(id, name),
                  [state, maintained, id, shared_done](Expected<Json> result) {
                    Expected<CheckpointOutcome> outcome =
                        result.ok() ? read_checkpoint_outcome(result.value(), id, true)
                                    : Expected<CheckpointOutcome>(result.error());
                    if (maintained) {
                      state->registry->end_maintenance(
                          outcome.ok()
                              ? Expected<std::optional<ComputerInfo>>(outcome.value().computer)
                              : Expected<std::optional<ComputerInfo>>(outcome.error()));
                    }
                    (*shared_done)(std::move(outcome));
                  },
                  reporting_progress(progress));
            },
            [shared_done](Failure failure) { (*shared_done)(std::move(failure)); });
        return CancelHandle(running);
      },
      std::move(done));
}

CancelHandle ComputerLifecycle::fork_checkpoint(ForkSpec spec, ProgressFn progress,
                                                OutcomeDone done) {
  if (!offers_checkpoints()) return refuse_at_once(done, state_->no_checkpoints());
  if (spec.checkpoint) {
    if (auto problem = checkpoint_name_problem(*spec.checkpoint)) {
      return refuse_at_once(done, Failure{VC_E_INVALID_ARGUMENT, *problem});
    }
  }
  if (!sdk::is_valid_computer_id(spec.new_computer_id)) {
    return refuse_at_once(
        done, Failure{VC_E_INVALID_ARGUMENT,
                      "'" + spec.new_computer_id + "' cannot name the new computer: " +
                          sdk::kComputerIdRule});
  }
  auto state = state_;
  const auto source = spec.computer_id;
  return state_->on_computer<CheckpointOutcome>(
      source,
      [state, spec = std::move(spec), progress](const std::string& id, OutcomeDone finished) {
        if (id == spec.new_computer_id) {
          return refuse_at_once(
              finished, Failure{VC_E_INVALID_ARGUMENT,
                                "A fork needs a new computer id; '" + id +
                                    "' is the computer being forked."});
        }
        return state->validated_op<CheckpointOutcome>(
            backend_proxy::Operation::fork_checkpoint, fork_request(id, spec), progress,
            [new_id = spec.new_computer_id, expected = spec.checkpoint.has_value()](
                const Json& result) { return read_checkpoint_outcome(result, new_id, expected); },
            std::move(finished));
      },
      std::move(done));
}

CancelHandle ComputerLifecycle::delete_checkpoint(const std::optional<std::string>& computer_id,
                                                  const std::string& name,
                                                  std::function<void(Expected<bool>)> done) {
  if (!offers_checkpoints()) return refuse_at_once(done, state_->no_checkpoints());
  if (auto problem = checkpoint_name_problem(name)) {
    return refuse_at_once(done, Failure{VC_E_INVALID_ARGUMENT, *problem});
  }
  auto state = state_;
  return state_->on_computer<bool>(
      computer_id,
      [state, name](const std::string& id, std::function<void(Expected<bool>)> finished) {
        return state->validated_op<bool>(backend_proxy::Operation::delete_checkpoint,
                                         checkpoint_request(id, name), nullptr,
                                         [](const Json& result) {
                                           return read_checkpoint_deletion(result);
                                         },
                                         std::move(finished));
      },
      std::move(done));
}

CancelHandle ComputerLifecycle::exec(const std::string& computer_id, ExecRequest request,
                                     OutputFn output,
                                     std::function<void(Expected<StreamedExit>)> done) {
  auto chain = state_->chain();
  auto state = state_;
  auto shared_done =
      std::make_shared<std::function<void(Expected<StreamedExit>)>>(std::move(done));
  auto fail = [shared_done](Failure failure) { (*shared_done)(std::move(failure)); };
  auto run_step = [chain, state, request, output, shared_done, fail,
                   computer_id](const ComputerInfo&) {
    StepOptions streaming;
    streaming.output_limit = request.output_limit;
    streaming.stdin_bytes = request.stdin_data;
    streaming.on_emit = [output](vc_stream stream, std::string_view bytes) {
      if (stream == VC_STREAM_STDOUT) output(OutputStream::stdout_stream, bytes);
      if (stream == VC_STREAM_STDERR) output(OutputStream::stderr_stream, bytes);
    };
    const auto start = std::chrono::steady_clock::now();
    chain->run(
        backend_proxy::Operation::exec, exec_request(computer_id, state->defaults.shell, request),
        [shared_done, fail, start](Expected<Json> result) {
          if (!result.ok()) return fail(result.error());
          auto completion = read_exec_result(result.value());
          if (!completion.ok()) return fail(completion.error());
          StreamedExit exit;
          exit.exit_code = completion.value().exit_code;
          exit.outcome = completion.value().outcome;
          exit.duration_ms = completion.value().duration_ms.value_or(
              std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - start)
                  .count());
          (*shared_done)(exit);
        },
        std::move(streaming));
  };
  // attach starts a stopped computer; asking for the state it already has changes nothing.
  auto attach_step = [chain, state, run_step, fail](const ComputerInfo& found) {
    ComputerSettings settings = state->defaults;
    settings.computer_id = found.computer_id;
    settings.network_access = found.network_access;
    settings.desktop_environment = found.desktop_environment;
    chain->run(backend_proxy::Operation::attach, attach_request(settings),
               [run_step, fail, id = found.computer_id](Expected<Json> result) {
                 auto info = info_for(result, id);
                 if (!info.ok()) return fail(info.error());
                 run_step(info.value());
               });
  };
  // A running computer takes the command at once; anything else is attached (started) first.
  auto find_step = [chain, run_step, attach_step, fail, computer_id] {
    chain->run(backend_proxy::Operation::list, Json::object(),
               [run_step, attach_step, fail, computer_id](Expected<Json> result) {
                 auto listed = read_list(result);
                 if (!listed.ok()) return fail(listed.error());
                 auto found = find_computer(listed.value(), computer_id);
                 if (!found) return fail(not_found(computer_id));
                 if (found->state == "running") return run_step(*found);
                 attach_step(*found);
               });
  };
  state_->validated_then(chain, find_step, fail);
  return chain;
}

}  // namespace vc::computers
