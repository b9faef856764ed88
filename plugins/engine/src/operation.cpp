// operation.cpp — launching and cancelling operations.
#include "operation.h"

namespace vc::engine {

RequestHandle::RequestHandle(std::weak_ptr<detail::Operation> operation)
    : operation_(std::move(operation)) {}

void RequestHandle::cancel() const {
  std::shared_ptr<detail::Operation> operation = operation_.lock();
  if (!operation) return;  // already finished and gone
  EngineLoop& loop = operation->loop();
  // A refused post means the loop is stopping, which cancels every operation anyway.
  loop.post([operation] { operation->cancel(); });
}

namespace detail {

EngineError cancelled_error() { return make_error(EngineErrorKind::kCancelled, "cancelled"); }

RequestHandle launch(const std::shared_ptr<Operation>& operation) {
  RequestHandle handle(operation);
  if (!operation->loop().post([operation] { operation->begin(); })) {
    operation->complete_unstarted(cancelled_error());
  }
  return handle;
}

}  // namespace detail
}  // namespace vc::engine
