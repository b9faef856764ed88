// computer_registry.cpp — the registry's state machine: acquired / acquiring / dead / shut down,
// and the execute() calls that run on top of it.
#include "computers/computer_registry.h"

#include <algorithm>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>
#include <vc-backend-1/vc_status.h>

#include "backend_proxy/backend.h"
#include "computers/acquisition.h"
#include "computers/death_watch.h"
#include "computers/exec_operation.h"

namespace vc::computers {
namespace {

using AcquireDone = std::function<void(Expected<ComputerInfo>)>;
using ExecuteDone = std::function<void(Expected<ExecResult>)>;

// The handle of work that finished before its caller got the handle.
class AlreadyFinished : public Cancellable {
 public:
  void cancel() override {}
};

std::string short_identity(const ComputerInfo& computer) {
  return computer.sandbox_id.empty() ? computer.computer_id : computer.sandbox_id;
}

// Everything the registry knows. Callbacks hold it weakly: pending backend work never keeps a
// destroyed registry alive, and its callers still hear back.
class RegistryCore : public std::enable_shared_from_this<RegistryCore> {
 public:
  RegistryCore(std::shared_ptr<backend_proxy::Backend> backend, ComputerSettings settings)
      : backend_(std::move(backend)),
        settings_(std::move(settings)),
        validation_(std::make_shared<BackendValidation>()) {}

  const ComputerSettings& settings() const { return settings_; }
  const std::shared_ptr<BackendValidation>& validation() const { return validation_; }
  const std::shared_ptr<backend_proxy::Backend>& backend() const { return backend_; }
  const std::optional<ComputerInfo>& computer() const { return computer_; }

  // Why no new work may start, if that is so.
  std::optional<Failure> refusal() const {
    if (shut_down_) return Failure{VC_E_CANCELLED, "The server is shutting down."};
    if (death_message_) return Failure{VC_E_COMPUTER_DIED, *death_message_};
    return std::nullopt;
  }

  // What the running acquisition last reported (building an image, creating the computer).
  std::optional<ProgressEvent> setup_progress() const {
    if (!acquisition_ || computer_) return std::nullopt;
    if (auto latest = acquisition_->latest_progress()) return latest;
    return ProgressEvent{0, std::nullopt, "Preparing the computer"};
  }

  CancelHandle acquire(ProgressFn progress, AcquireDone done) {
    if (auto refused = refusal()) {
      done(*refused);
      return std::make_shared<AlreadyFinished>();
    }
    if (computer_) {
      done(*computer_);
      return std::make_shared<AlreadyFinished>();
    }
    if (!acquisition_) {
      acquisition_ = Acquisition::start(backend_, settings_, !validation_->validated(), hooks());
    }
    return acquisition_->join(std::move(progress), std::move(done));
  }

  // The computer stopped unexpectedly (death watch, or an exec that saw it go).
  void declare_dead(const std::string& reason) {
    if (death_message_ || shut_down_ || maintenance_depth_ > 0) return;
    death_message_ = died_message(computer_ ? short_identity(*computer_) : settings_.computer_id);
    spdlog::warn("Computer '{}' died: {}", settings_.computer_id, reason);
    if (death_watch_) death_watch_->cancel();  // no-op when the watch itself reported it
    announce_death();
  }

  bool dead() const { return death_message_.has_value(); }
  const std::optional<std::string>& death_message() const { return death_message_; }

  // The engine could not be reached (a command lost it, or the death watch gave up or saw the
  // engine's own shutdown stop the computer): not a death. The computer is forgotten, so the
  // next call attaches to it afresh, starting it if the engine stopped it.
  void lose_engine(const std::string& reason) {
    engine_failure_ = reason;
    if (shut_down_ || dead() || maintenance_depth_ > 0 || !computer_) return;
    spdlog::warn("Lost the engine of computer '{}': {}", settings_.computer_id, reason);
    stop_death_watch();
    computer_.reset();
  }

  const std::optional<std::string>& engine_failure() const { return engine_failure_; }

  // Counts begun maintenance operations; an execution that sees it change was interrupted on
  // purpose, not by a death.
  uint64_t maintenance_epoch() const { return maintenance_epoch_; }
  bool in_maintenance() const { return maintenance_depth_ > 0; }

  void begin_maintenance() {
    ++maintenance_depth_;
    ++maintenance_epoch_;
    stop_death_watch();
  }

  void end_maintenance(const Expected<std::optional<ComputerInfo>>& outcome) {
    if (maintenance_depth_ > 0) --maintenance_depth_;
    if (shut_down_) return;
    death_message_.reset();
    death_announced_ = false;
    if (outcome.ok() && outcome.value()) {
      computer_ = *outcome.value();
      observe();
    } else if (outcome.ok() || !refused_untouched(outcome.error())) {
      computer_.reset();
    }
    if (computer_ && maintenance_depth_ == 0 && !acquisition_) start_death_watch();
  }

  // A refusal the backend gives before touching the computer (a desktop switch on a headless
  // image, a request it cannot serve): the computer is as it was, so the registry keeps it.
  static bool refused_untouched(const Failure& failure) {
    return failure.status == VC_E_UNSUPPORTED || failure.status == VC_E_INVALID_ARGUMENT;
  }

  void set_computer_observer(std::function<void(const ComputerInfo&)> observer) {
    observer_ = std::move(observer);
  }

  void set_death_handler(std::function<void(const std::string&)> handler) {
    death_handler_ = std::move(handler);
    announce_death();  // a death that happened before the handler was set is not lost
  }

  void track(const std::shared_ptr<Cancellable>& execution) {
    std::erase_if(executions_, [](const auto& weak) { return weak.expired(); });
    executions_.push_back(execution);
  }

  void shutdown() {
    if (shut_down_) return;
    shut_down_ = true;
    stop_death_watch();
    // Executions first: those still waiting for the computer leave the acquisition at once.
    for (const auto& weak : executions_) {
      if (auto execution = weak.lock()) execution->cancel();
    }
    executions_.clear();
    if (auto acquisition = acquisition_) acquisition->cancel();
  }

 private:
  Acquisition::Hooks hooks() {
    std::weak_ptr<RegistryCore> weak = weak_from_this();
    Acquisition::Hooks hooks;
    hooks.validated = [weak] {
      if (auto core = weak.lock()) core->validation_->mark_validated();
    };
    hooks.settled = [weak](const Expected<ComputerInfo>& outcome) {
      if (auto core = weak.lock()) core->settled(outcome);
    };
    return hooks;
  }

  void settled(const Expected<ComputerInfo>& outcome) {
    acquisition_.reset();  // success is remembered below; a failure is retried by the next call
    if (!outcome.ok()) {
      spdlog::warn("Could not acquire computer '{}': {}", settings_.computer_id,
                   outcome.error().message);
      if (outcome.error().status == VC_E_UNAVAILABLE) engine_failure_ = outcome.error().message;
      return;
    }
    engine_failure_.reset();
    computer_ = outcome.value();
    observe();
    spdlog::info("Using computer '{}' (sandbox {}).", computer_->computer_id,
                 computer_->sandbox_id);
    if (!shut_down_ && maintenance_depth_ == 0) start_death_watch();
  }

  void start_death_watch() {
    stop_death_watch();
    std::weak_ptr<RegistryCore> weak = weak_from_this();
    const uint64_t generation = watch_generation_;
    // A watch stopped for maintenance may still report the stop it was racing.
    auto current = [weak, generation]() -> std::shared_ptr<RegistryCore> {
      auto core = weak.lock();
      return core && generation == core->watch_generation_ ? core : nullptr;
    };
    death_watch_ = watch_for_death(
        *backend_, computer_->computer_id,
        {[current](const std::string& reason) {
           if (auto core = current()) core->declare_dead(reason);
         },
         [current](const std::string& reason) {
           if (auto core = current()) core->lose_engine(reason);
         }});
  }

  void stop_death_watch() {
    ++watch_generation_;
    if (death_watch_) death_watch_->cancel();
    death_watch_.reset();
  }

  void observe() {
    if (observer_ && computer_) observer_(*computer_);
  }

  void announce_death() {
    if (!death_message_ || !death_handler_ || death_announced_) return;
    death_announced_ = true;
    death_handler_(*death_message_);
  }

  std::shared_ptr<backend_proxy::Backend> backend_;
  ComputerSettings settings_;
  std::shared_ptr<BackendValidation> validation_;
  std::optional<ComputerInfo> computer_;
  std::shared_ptr<Acquisition> acquisition_;
  CancelHandle death_watch_;
  std::optional<std::string> death_message_;
  std::optional<std::string> engine_failure_;
  std::function<void(const std::string&)> death_handler_;
  std::function<void(const ComputerInfo&)> observer_;
  bool death_announced_ = false;
  bool shut_down_ = false;
  int maintenance_depth_ = 0;
  uint64_t maintenance_epoch_ = 0;
  uint64_t watch_generation_ = 0;
  std::vector<std::weak_ptr<Cancellable>> executions_;
};

// One execute() call: wait for the computer, then run the command on it.
class Execution : public Cancellable, public std::enable_shared_from_this<Execution> {
 public:
  Execution(std::weak_ptr<RegistryCore> core, ExecRequest request, ExecuteDone done)
      : core_(std::move(core)), request_(std::move(request)), done_(std::move(done)) {}

  void start(RegistryCore& core, ProgressFn progress) {
    waiting_ = core.acquire(std::move(progress),
                            [self = shared_from_this()](Expected<ComputerInfo> computer) {
                              self->on_computer(std::move(computer));
                            });
  }

  void cancel() override {
    if (finished_ || cancelled_) return;
    cancelled_ = true;
    if (running_) {
      running_->cancel();  // the backend kills the command and then completes
    } else if (waiting_) {
      waiting_->cancel();  // completes this execution at once
    }
  }

 private:
  void on_computer(Expected<ComputerInfo> computer) {
    if (!computer.ok()) return finish(computer.error());
    auto core = core_.lock();
    if (!core) return finish(Failure{VC_E_CANCELLED, "The server is shutting down."});
    if (auto refused = core->refusal()) return finish(*refused);
    computer_ = std::move(computer).value();
    maintenance_epoch_ = core->maintenance_epoch();
    running_ = run_exec_operation(*core->backend(), computer_, core->settings().shell, request_,
                                  [self = shared_from_this()](Expected<ExecResult> result) {
                                    self->on_command_finished(std::move(result));
                                  });
  }

  void on_command_finished(Expected<ExecResult> result) {
    auto core = core_.lock();
    if (!result.ok() && core && interrupted_by_maintenance(*core)) {
      return finish(Failure{VC_E_COMPUTER_STOPPED,
                            "Computer '" + computer_.computer_id +
                                "' was restarted, reset or deleted while the command ran; "
                                "the command did not finish."});
    }
    if (!result.ok()) {
      if (result.error().status == VC_E_COMPUTER_DIED) return finish(computer_died(core));
      if (result.error().status == VC_E_UNAVAILABLE && core) {
        core->lose_engine(result.error().message);
      }
      return finish(result.error());
    }
    // As the original: a command that failed while its computer died failed because of that.
    bool clean_exit =
        result.value().outcome == ExecOutcome::exited && result.value().exit_code == 0;
    if (core && core->dead() && !clean_exit) return finish(computer_died(core));
    if (core && core->computer()) result.value().computer = *core->computer();
    finish(std::move(result));
  }

  bool interrupted_by_maintenance(const RegistryCore& core) const {
    return core.in_maintenance() || core.maintenance_epoch() != maintenance_epoch_;
  }

  Failure computer_died(const std::shared_ptr<RegistryCore>& core) {
    std::string message = died_message(short_identity(computer_));
    if (core) core->declare_dead("it stopped while a command was running");
    return Failure{VC_E_COMPUTER_DIED, std::move(message)};
  }

  void finish(Expected<ExecResult> result) {
    if (finished_) return;
    finished_ = true;
    ExecuteDone done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
  }

  std::weak_ptr<RegistryCore> core_;
  ExecRequest request_;
  ExecuteDone done_;
  ComputerInfo computer_;
  uint64_t maintenance_epoch_ = 0;
  CancelHandle waiting_;
  CancelHandle running_;
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace

struct ComputerRegistry::State : RegistryCore {
  using RegistryCore::RegistryCore;
};

ComputerRegistry::ComputerRegistry(std::shared_ptr<backend_proxy::Backend> backend,
                                   ComputerSettings settings)
    : state_(std::make_shared<State>(std::move(backend), std::move(settings))) {}

ComputerRegistry::~ComputerRegistry() { shutdown(); }

const ComputerSettings& ComputerRegistry::settings() const { return state_->settings(); }

std::optional<ProgressEvent> ComputerRegistry::setup_progress() const {
  return state_->setup_progress();
}

CancelHandle ComputerRegistry::acquire(ProgressFn progress,
                                       std::function<void(Expected<ComputerInfo>)> done) {
  return state_->acquire(std::move(progress), std::move(done));
}

CancelHandle ComputerRegistry::execute(ExecRequest request, ProgressFn progress,
                                       std::function<void(Expected<ExecResult>)> done) {
  auto execution = std::make_shared<Execution>(state_, std::move(request), std::move(done));
  state_->track(execution);
  execution->start(*state_, std::move(progress));
  return execution;
}

std::optional<ComputerInfo> ComputerRegistry::current() const { return state_->computer(); }

std::optional<std::string> ComputerRegistry::death_message() const {
  return state_->death_message();
}

std::optional<std::string> ComputerRegistry::engine_failure() const {
  return state_->engine_failure();
}

void ComputerRegistry::begin_maintenance() { state_->begin_maintenance(); }

void ComputerRegistry::end_maintenance(const Expected<std::optional<ComputerInfo>>& outcome) {
  state_->end_maintenance(outcome);
}

void ComputerRegistry::set_death_handler(std::function<void(const std::string& message)> handler) {
  state_->set_death_handler(std::move(handler));
}

void ComputerRegistry::set_computer_observer(std::function<void(const ComputerInfo&)> observer) {
  state_->set_computer_observer(std::move(observer));
}

const std::shared_ptr<backend_proxy::Backend>& ComputerRegistry::backend() const {
  return state_->backend();
}

const std::shared_ptr<BackendValidation>& ComputerRegistry::backend_validation() const {
  return state_->validation();
}

void ComputerRegistry::shutdown() { state_->shutdown(); }

}  // namespace vc::computers
