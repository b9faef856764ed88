// request_handle.h — cancels one in-flight engine call.
//
// Every asynchronous EngineClient call returns a RequestHandle. Cancelling closes the call's
// connection (one connection per request, so cancellation is just that) and completes the call
// with EngineErrorKind::kCancelled, unless it had already completed. Dropping the handle does
// NOT cancel: the call runs to its end.
#pragma once

#include <memory>

namespace vc::engine {

namespace detail {
class Operation;
}

class RequestHandle {
 public:
  RequestHandle() = default;
  explicit RequestHandle(std::weak_ptr<detail::Operation> operation);

  // Cancels the call. The completion callback runs once, on the loop thread, with kCancelled
  // if the call had not completed yet. Idempotent; a no-op on an empty or finished handle.
  // Any thread.
  void cancel() const;

  // False for a default-constructed handle. Any thread.
  bool valid() const { return !operation_.expired(); }

 private:
  std::weak_ptr<detail::Operation> operation_;
};

}  // namespace vc::engine
