// desktop_action.cpp — acquire, then one backend desktop_action op.
#include "computers/desktop_action.h"

#include <memory>
#include <utility>

#include <vc-backend-1/vc_status.h>

#include "backend_proxy/backend.h"

namespace vc::computers {
namespace {

class DesktopAction : public Cancellable, public std::enable_shared_from_this<DesktopAction> {
 public:
  DesktopAction(std::shared_ptr<backend_proxy::Backend> backend, Json action,
                std::function<void(Expected<Json>)> done)
      : backend_(std::move(backend)), action_(std::move(action)), done_(std::move(done)) {}

  void start(ComputerRegistry& registry) {
    waiting_ = registry.acquire(nullptr, [self = shared_from_this()](Expected<ComputerInfo> info) {
      self->on_computer(std::move(info));
    });
  }

  void cancel() override {
    if (finished_ || cancelled_) return;
    cancelled_ = true;
    if (running_) {
      running_->cancel();
    } else if (waiting_) {
      waiting_->cancel();
    }
  }

 private:
  void on_computer(Expected<ComputerInfo> info) {
    if (!info.ok()) return finish(info.error());
    if (cancelled_) return finish(Failure{VC_E_CANCELLED, "The desktop action was cancelled."});
    Json request = action_;
    request["computer_id"] = info.value().computer_id;
    backend_proxy::OpCallbacks callbacks;
    callbacks.on_complete = [self = shared_from_this()](Expected<Json> result) {
      self->finish(std::move(result));
    };
    running_ = backend_->start(backend_proxy::Operation::desktop_action, request, std::move(callbacks));
  }

  void finish(Expected<Json> result) {
    if (finished_) return;
    finished_ = true;
    auto done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
  }

  std::shared_ptr<backend_proxy::Backend> backend_;
  Json action_;
  std::function<void(Expected<Json>)> done_;
  CancelHandle waiting_;
  CancelHandle running_;
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace

CancelHandle run_desktop_action(ComputerRegistry& registry, Json action,
                                std::function<void(Expected<Json>)> done) {
  auto operation =
      std::make_shared<DesktopAction>(registry.backend(), std::move(action), std::move(done));
  operation->start(registry);
  return operation;
}

}  // namespace vc::computers
