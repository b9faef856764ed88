// computer_registry.h — the one configured computer of this server: lazy acquisition, command
// execution, and watching for its unexpected death.
//
// Acquisition: the first call that needs the computer validates the backend (once), then
// attaches to an existing computer or, when there is none, ensures the image and creates one.
// Concurrent first calls share one acquisition, so exactly one computer is created; a failed
// acquisition is forgotten, so the next call retries. After acquisition a death watch runs
// (backend wait_for_death); when it fires, every later call fails with
// "Sandbox <sandbox id> died during command execution" style messages and the death handler runs.
// An engine that goes away (VC_E_UNAVAILABLE from a command or from the watch) is not a death:
// the computer is forgotten and the next call acquires it again.
//
// Completion callbacks (`done`) run exactly once. acquire() answers before it returns when no
// backend work is needed (the computer is already acquired or dead, or the registry was shut
// down); otherwise, and for every command, `done` runs on a later loop turn. Cancelling a
// returned handle completes its `done` with VC_E_CANCELLED: at once while waiting for the
// computer, and once the backend has stopped the command while one runs.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/cancellable.h"
#include "common/failure.h"
#include "computers/backend_validation.h"
#include "computers/computer_settings.h"
#include "computers/computer_types.h"

namespace vc::backend_proxy {
class Backend;  // the computers room's own dependency, not part of its interface
}

namespace vc::computers {

// progress in [0, total]; total absent when unknown.
using ProgressFn =
    std::function<void(double progress, std::optional<double> total, const std::string& message)>;

class ComputerRegistry {
 public:
  ComputerRegistry(std::shared_ptr<backend_proxy::Backend> backend, ComputerSettings settings);
  // Shuts down (see shutdown()).
  ~ComputerRegistry();
  ComputerRegistry(const ComputerRegistry&) = delete;
  ComputerRegistry& operator=(const ComputerRegistry&) = delete;

  const ComputerSettings& settings() const;

  // [loop-thread] The configured computer, acquiring it if needed. `progress` may be empty.
  // Cancelling stops this caller's wait; an acquisition other callers share goes on.
  CancelHandle acquire(ProgressFn progress, std::function<void(Expected<ComputerInfo>)> done);

  // [loop-thread] Acquires if needed, then runs the command. Cancelling kills the command.
  CancelHandle execute(ExecRequest request, ProgressFn progress,
                       std::function<void(Expected<ExecResult>)> done);

  // [loop-thread] The last known state of the computer, if it has been acquired.
  std::optional<ComputerInfo> current() const;

  // [loop-thread] Why the engine could not be reached, when the last attempt to acquire or use
  // the computer could not reach it (the engine stopped or restarting); nullopt once the
  // computer was acquired again. Such a failure is not a death: the computer is forgotten and
  // the next call attaches to it afresh.
  std::optional<std::string> engine_failure() const;

  // [loop-thread] Why the computer is dead ("Sandbox … died …"), once it stopped unexpectedly;
  // nullopt while it lives or after a restart or reset brought it back.
  std::optional<std::string> death_message() const;

  // [loop-thread] While the computer is being acquired: the latest progress event (an image
  // build's step, "Creating the computer"); nullopt when no acquisition runs.
  std::optional<ProgressEvent> setup_progress() const;

  // [loop-thread] An intentional restart, factory reset, removal or network change of this
  // server's computer is starting: the death watch pauses (a stop asked for is not a death)
  // until the matching end_maintenance(). Calls nest.
  void begin_maintenance();

  // [loop-thread] The operation begun above finished. `outcome` is the computer as it is now,
  // nullopt when it no longer exists, or the operation's failure. A reported computer is used
  // from now on (one that had died is alive again); after a removal or a failure the next call
  // attaches to or creates the computer afresh — except after a refusal the backend gives before
  // touching anything (VC_E_UNSUPPORTED, VC_E_INVALID_ARGUMENT), which keeps the computer in
  // use. A command that the operation interrupted fails
  // with "...was restarted, reset or deleted while the command ran" instead of a death.
  void end_maintenance(const Expected<std::optional<ComputerInfo>>& outcome);

  // [loop-thread] Runs each time the registry learns the computer's state anew: after it was
  // acquired, and after a restart, reset, network or desktop switch of it. The desktop tools
  // follow the live desktop state through it.
  void set_computer_observer(std::function<void(const ComputerInfo&)> observer);

  // [loop-thread] The backend the computer lives on, for operations that run on the acquired
  // computer (desktop actions).
  const std::shared_ptr<backend_proxy::Backend>& backend() const;

  // [loop-thread] Whether the backend's engine was probed already; the lifecycle of this
  // server shares it, so the engine is validated once per process.
  const std::shared_ptr<BackendValidation>& backend_validation() const;

  // [loop-thread] Called once if the computer dies unexpectedly after acquisition.
  void set_death_handler(std::function<void(const std::string& message)> handler);

  // [loop-thread] Stops the death watch and cancels pending work. Computers keep running.
  // Idempotent; later acquire()/execute() calls fail with VC_E_CANCELLED.
  void shutdown();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace vc::computers
