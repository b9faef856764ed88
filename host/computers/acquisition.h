// acquisition.h — one attempt at getting the configured computer, shared by every caller that
// needs it while the attempt runs (so concurrent first calls create exactly one computer).
//
// Steps: validate (only when asked: the registry validates the backend once), attach, and
// when attach answers VC_E_NOT_FOUND, ensure_image then create (adopting a computer that
// appeared meanwhile; for a 1.0 plugin, by attaching once more). Progress events of any step
// (VC_STREAM_PROGRESS) reach every waiter. The first failing step ends the attempt with the
// backend's own message, which is already actionable ("Cannot connect to ...").
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "common/cancellable.h"
#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_registry.h"
#include "computers/computer_types.h"
#include "computers/operation_documents.h"
#include "backend_proxy/backend.h"

namespace vc::computers {

class Acquisition : public std::enable_shared_from_this<Acquisition> {
 public:
  using Done = std::function<void(Expected<ComputerInfo>)>;

  struct Hooks {
    // validate succeeded (the caller caches that and does not ask again).
    std::function<void()> validated;
    // The attempt is over. Runs before any waiter hears the outcome, so a waiter reacting to
    // it already sees the caller's updated state.
    std::function<void(const Expected<ComputerInfo>&)> settled;
  };

  // [loop-thread] Starts the first step; its completion arrives on a later loop turn.
  static std::shared_ptr<Acquisition> start(std::shared_ptr<backend_proxy::Backend> backend,
                                            ComputerSettings settings, bool validate_first,
                                            Hooks hooks);

  // [loop-thread] Adds a caller. `progress` (may be empty) hears the latest progress event at
  // once and every later one. `done` runs exactly once with the outcome. Cancelling the
  // returned handle makes only this caller stop waiting — its `done` runs at once with
  // VC_E_CANCELLED — while the attempt goes on for the others.
  CancelHandle join(ProgressFn progress, Done done);

  // [loop-thread] The latest progress event of the attempt, if any came.
  const std::optional<ProgressEvent>& latest_progress() const { return latest_progress_; }

  // [loop-thread] Abandons the attempt: the running backend op is cancelled and every waiter
  // then gets the outcome (normally VC_E_CANCELLED).
  void cancel();

  // Use start().
  Acquisition(std::shared_ptr<backend_proxy::Backend> backend, ComputerSettings settings, Hooks hooks);

 private:
  class Ticket;
  struct Waiter {
    uint64_t id = 0;
    ProgressFn progress;
    Done done;
  };
  using StepResult = std::function<void(Expected<Json>)>;

  void validate();
  void attach();
  void ensure_image();
  void create();
  void run_step(backend_proxy::Operation op, const Json& request, StepResult next);
  Expected<ComputerInfo> expected_computer(const Json& result) const;
  void broadcast(const ProgressEvent& event);
  void leave(uint64_t waiter_id);
  void settle(Expected<ComputerInfo> outcome);

  std::shared_ptr<backend_proxy::Backend> backend_;
  ComputerSettings settings_;
  Hooks hooks_;
  std::vector<Waiter> waiters_;
  uint64_t next_waiter_id_ = 1;
  CancelHandle running_step_;
  std::optional<ProgressEvent> latest_progress_;
  std::optional<Expected<ComputerInfo>> outcome_;
  bool cancelled_ = false;
  bool attached_after_create_ = false;  // the 1.0 fallback of create() ran: only once
};

}  // namespace vc::computers
