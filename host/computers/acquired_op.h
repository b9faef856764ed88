// acquired_op.h — one backend operation on the server's computer, acquired first: the shape
// shared by a desktop action (desktop_action.h) and the process operations (process_ops.h).
//
// Acquires the computer if needed (as a command does), then starts `operation` with `request`
// plus {"computer_id"}. The backend's result, or its failure with its message unchanged,
// reaches `done`.
//
// [loop-thread]; `done` runs exactly once, on a later loop turn. Cancelling stops waiting for
// the computer, or cancels the backend's op once it runs; `done` then reports VC_E_CANCELLED
// with "The <what> was cancelled."
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/cancellable.h"
#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_registry.h"

namespace vc::backend_proxy {
enum class Operation;
}

namespace vc::computers {

// `what` names the operation in the cancellation message ("desktop action").
CancelHandle run_on_acquired_computer(ComputerRegistry& registry,
                                      backend_proxy::Operation operation, Json request,
                                      std::string what, std::function<void(Expected<Json>)> done);

}  // namespace vc::computers
