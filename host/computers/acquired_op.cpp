// acquired_op.cpp — acquire, then one backend op.
#include "computers/acquired_op.h"

#include <utility>

#include <vc-backend-1/vc_status.h>

#include "backend_proxy/backend.h"

namespace vc::computers {
namespace {

class AcquiredOp : public Cancellable, public std::enable_shared_from_this<AcquiredOp> {
 public:
  AcquiredOp(std::shared_ptr<backend_proxy::Backend> backend, backend_proxy::Operation operation,
             Json request, std::string what, std::function<void(Expected<Json>)> done)
      : backend_(std::move(backend)),
        operation_(operation),
        request_(std::move(request)),
        what_(std::move(what)),
        done_(std::move(done)) {}

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
    if (cancelled_) return finish(Failure{VC_E_CANCELLED, "The " + what_ + " was cancelled."});
    Json request = request_;
    request["computer_id"] = info.value().computer_id;
    backend_proxy::OpCallbacks callbacks;
    callbacks.on_complete = [self = shared_from_this()](Expected<Json> result) {
      self->finish(std::move(result));
    };
    running_ = backend_->start(operation_, request, std::move(callbacks));
  }

  void finish(Expected<Json> result) {
    if (finished_) return;
    finished_ = true;
    auto done = std::move(done_);
    done_ = nullptr;
    done(std::move(result));
  }

  std::shared_ptr<backend_proxy::Backend> backend_;
  backend_proxy::Operation operation_;
  Json request_;
  std::string what_;
  std::function<void(Expected<Json>)> done_;
  CancelHandle waiting_;
  CancelHandle running_;
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace

CancelHandle run_on_acquired_computer(ComputerRegistry& registry,
                                      backend_proxy::Operation operation, Json request,
                                      std::string what, std::function<void(Expected<Json>)> done) {
  auto op = std::make_shared<AcquiredOp>(registry.backend(), operation, std::move(request),
                                         std::move(what), std::move(done));
  op->start(registry);
  return op;
}

}  // namespace vc::computers
