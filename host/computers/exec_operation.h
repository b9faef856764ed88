// exec_operation.h — one command run through the backend's exec op, its output gathered.
#pragma once

#include <functional>
#include <string>

#include "common/cancellable.h"
#include "common/failure.h"
#include "computers/computer_types.h"
#include "plugins/backend.h"

namespace vc::computers {

// [loop-thread] Runs `request` on the computer `computer.computer_id` (`shell` wraps a
// `command`). `done` runs exactly once, on a later loop turn, with the raw output bytes and the
// outcome; `result.computer` is `computer`. Backend failures pass through unchanged (status and
// the plugin's message). Output beyond request.output_limit is not kept, and a command that
// produced more than the limit counts as output_limit_exceeded even if the backend raced it to
// a normal exit. Cancelling kills the command.
CancelHandle run_exec_operation(plugins::Backend& backend, const ComputerInfo& computer,
                                const std::string& shell, const ExecRequest& request,
                                std::function<void(Expected<ExecResult>)> done);

}  // namespace vc::computers
