// exec_operation.h — one command run through the backend's exec op, its output gathered.
#pragma once

#include <functional>
#include <string>

#include "common/cancellable.h"
#include "common/failure.h"
#include "computers/computer_types.h"
#include "backend_proxy/backend.h"

namespace vc::computers {

// [loop-thread] Runs `request` on the computer `computer.computer_id` (`shell` wraps a
// `command`). `done` runs exactly once, on a later loop turn, with the raw output bytes and the
// outcome; `result.computer` is `computer`. Backend failures pass through unchanged (status and
// the plugin's message). request.output_limit goes to the backend proxy, which cuts the output
// there and reports a command cut short as output_limit_exceeded (OpCallbacks::output_limit);
// what it delivers is kept whole. Cancelling kills the command.
//
// When the backend has not completed the exec by the command's timeout plus kExecGrace (counted
// from when the backend can have started it, see exec_watchdog.h), the op is cancelled and
// `done` gets VC_E_TIMEOUT: "The <name> backend did not finish the command within its N s
// timeout (and 10 s more); ...". A completion that arrives afterwards is logged and dropped.
CancelHandle run_exec_operation(backend_proxy::Backend& backend, const ComputerInfo& computer,
                                const std::string& shell, const ExecRequest& request,
                                std::function<void(Expected<ExecResult>)> done);

}  // namespace vc::computers
