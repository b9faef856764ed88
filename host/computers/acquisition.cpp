// acquisition.cpp — validate → attach → (ensure_image → create), shared by its waiters.
#include "computers/acquisition.h"

#include <algorithm>
#include <utility>

#include <spdlog/spdlog.h>
#include <vc-backend-1/vc_op.h>
#include <vc-backend-1/vc_status.h>

#include "computers/operation_documents.h"

namespace vc::computers {
namespace {

Failure cancelled_attempt() {
  return Failure{VC_E_CANCELLED, "Acquiring the computer was cancelled."};
}

Failure cancelled_waiter() {
  return Failure{VC_E_CANCELLED, "The request was cancelled while the computer was starting."};
}

}  // namespace

// A waiter's handle: cancelling it removes only that waiter.
class Acquisition::Ticket : public Cancellable {
 public:
  Ticket(std::weak_ptr<Acquisition> acquisition, uint64_t waiter_id)
      : acquisition_(std::move(acquisition)), waiter_id_(waiter_id) {}

  void cancel() override {
    if (auto acquisition = acquisition_.lock()) acquisition->leave(waiter_id_);
  }

 private:
  std::weak_ptr<Acquisition> acquisition_;
  uint64_t waiter_id_;
};

Acquisition::Acquisition(std::shared_ptr<backend_proxy::Backend> backend, ComputerSettings settings,
                         Hooks hooks)
    : backend_(std::move(backend)), settings_(std::move(settings)), hooks_(std::move(hooks)) {}

std::shared_ptr<Acquisition> Acquisition::start(std::shared_ptr<backend_proxy::Backend> backend,
                                                ComputerSettings settings, bool validate_first,
                                                Hooks hooks) {
  auto acquisition =
      std::make_shared<Acquisition>(std::move(backend), std::move(settings), std::move(hooks));
  if (validate_first) {
    acquisition->validate();
  } else {
    acquisition->attach();
  }
  return acquisition;
}

CancelHandle Acquisition::join(ProgressFn progress, Done done) {
  if (outcome_) {
    done(*outcome_);
    return std::make_shared<Ticket>(weak_from_this(), 0);
  }
  if (progress && latest_progress_) {
    progress(latest_progress_->progress, latest_progress_->total, latest_progress_->message);
  }
  uint64_t id = next_waiter_id_++;
  waiters_.push_back(Waiter{id, std::move(progress), std::move(done)});
  return std::make_shared<Ticket>(weak_from_this(), id);
}

void Acquisition::cancel() {
  if (outcome_ || cancelled_) return;
  cancelled_ = true;
  if (running_step_) running_step_->cancel();
}

void Acquisition::validate() {
  run_step(backend_proxy::Operation::validate, Json::object(), [this](Expected<Json> result) {
    if (!result.ok()) return settle(result.error());
    if (hooks_.validated) hooks_.validated();
    attach();
  });
}

void Acquisition::attach() {
  run_step(backend_proxy::Operation::attach, attach_request(settings_), [this](Expected<Json> result) {
    if (result.ok()) return settle(expected_computer(result.value()));
    if (result.error().status != VC_E_NOT_FOUND) return settle(result.error());
    spdlog::info("Computer '{}' does not exist yet; creating it.", settings_.computer_id);
    ensure_image();
  });
}

void Acquisition::ensure_image() {
  run_step(backend_proxy::Operation::ensure_image, Json::object(), [this](Expected<Json> result) {
    if (image_step_failed(result)) return settle(result.error());
    create();
  });
}

// Another client of the backend may create the computer between our attach and this create.
// Adopting it then is what we want, so create is asked to (ABI 1.1). A 1.0 plugin ignores the
// field and may answer VC_E_ALREADY_EXISTS instead: attach is tried once more for it.
void Acquisition::create() {
  Json request = create_request(settings_);
  request["adopt_existing"] = true;
  run_step(backend_proxy::Operation::create, request, [this](Expected<Json> result) {
    if (result.ok()) return settle(expected_computer(result.value()));
    const bool lost_race = result.error().status == VC_E_ALREADY_EXISTS &&
                           backend_->info().abi_minor == 0 && !attached_after_create_;
    if (!lost_race) return settle(result.error());
    attached_after_create_ = true;
    spdlog::info("Computer '{}' appeared while it was being created; attaching to it.",
                 settings_.computer_id);
    attach();
  });
}

// Starts one step. The completion callback owns the acquisition, so it lives exactly as long
// as a step is running; `next` may use `this`.
void Acquisition::run_step(backend_proxy::Operation op, const Json& request, StepResult next) {
  backend_proxy::OpCallbacks callbacks;
  callbacks.on_emit = [self = shared_from_this()](vc_stream stream, std::string_view bytes) {
    if (stream != VC_STREAM_PROGRESS) return;
    if (auto event = read_progress_event(bytes)) self->broadcast(*event);
  };
  callbacks.on_complete = [self = shared_from_this(),
                           next = std::move(next)](Expected<Json> result) {
    self->running_step_.reset();
    if (self->outcome_) return;
    // A step that won the race against cancel() must not start the next one.
    if (self->cancelled_) {
      return self->settle(result.ok() ? cancelled_attempt() : result.error());
    }
    next(std::move(result));
  };
  running_step_ = backend_->start(op, request, std::move(callbacks));
}

Expected<ComputerInfo> Acquisition::expected_computer(const Json& result) const {
  auto info = read_computer_info(result);
  if (!info.ok()) return info;
  if (info.value().computer_id != settings_.computer_id) {
    return Failure{VC_E_FAILED, "The backend returned computer '" + info.value().computer_id +
                                    "' when asked for '" + settings_.computer_id + "'."};
  }
  return info;
}

void Acquisition::broadcast(const ProgressEvent& event) {
  latest_progress_ = event;
  // A progress callback may cancel its own request; iterate over a snapshot.
  std::vector<ProgressFn> listeners;
  for (const auto& waiter : waiters_) {
    if (waiter.progress) listeners.push_back(waiter.progress);
  }
  for (const auto& listener : listeners) listener(event.progress, event.total, event.message);
}

void Acquisition::leave(uint64_t waiter_id) {
  auto it = std::find_if(waiters_.begin(), waiters_.end(),
                         [waiter_id](const Waiter& waiter) { return waiter.id == waiter_id; });
  if (it == waiters_.end()) return;  // already answered
  Done done = std::move(it->done);
  waiters_.erase(it);
  done(cancelled_waiter());
}

void Acquisition::settle(Expected<ComputerInfo> outcome) {
  outcome_ = std::move(outcome);
  if (hooks_.settled) hooks_.settled(*outcome_);
  std::vector<Waiter> waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& waiter : waiters) waiter.done(*outcome_);
}

}  // namespace vc::computers
