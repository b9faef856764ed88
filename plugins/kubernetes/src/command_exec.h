// command_exec.h — a user's command run through the API's exec, one exec per command.
//
// The path for computers where the exec agent does not run (and the first contact before it
// does). The command runs in the pod's "computer" container under a small sh prologue that
//   - reports its PID on the first line of stderr (taken off before the output is emitted): the
//     API's exec leads its own process group, so `kill -KILL -<pid>` ends the whole tree;
//   - changes to the working directory;
//   - gives the command exactly the bytes of its standard input and then end of input: the
//     1.20 API's exec protocol (v4.channel.k8s.io) cannot close stdin, so the prologue reads
//     the given length with `head -c` into the command; with no input the command has none.
// On timeout, on the output limit and on cancel the process group is killed with a second exec,
// and the result says why (exit code 137, outcome timed_out or output_limit_exceeded), as on
// the other engines. A command that fails because the computer went away is the computer's
// death (VC_E_COMPUTER_DIED), with the pod's own account of it.
//
// Thread rule: a lane thread (blocking); `emit` is called on it.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc-backend-1/cpp/op_result.h>
#include <vc-backend-1/cpp/requests.h>
#include <vc-backend-1/vc_op.h>

#include "cluster_calls.h"
#include "computer_flows.h"

namespace vc::kubernetes {

// Hands output to the op: false when nobody listens any more (the host truncated the output).
using EmitOutput = std::function<bool(vc_stream stream, std::string_view bytes)>;

struct CommandScene {
  std::string pod;               // the running pod
  std::string default_shell;     // the computer's shell, for a "command" without "shell"
  std::string workspace;         // the working directory when the request names none
};

sdk::OpResult run_command_by_api_exec(ClusterCalls& calls, ComputerFlows& flows,
                                      const CommandScene& scene, const sdk::ExecRequest& request,
                                      std::string_view stdin_bytes, const EmitOutput& emit,
                                      sdk::CancelScope& scope);

// A command whose output stream ended under it (`lost`): the computer's death
// (VC_E_COMPUTER_DIED) when its pod is gone or not running any more, else `lost` itself.
sdk::OpResult conclude_lost_command(ComputerFlows& flows, const std::string& computer_id,
                                    const sdk::OpFailure& lost);

// The argv the prologue runs `request`'s command with (exposed for tests).
std::vector<std::string> api_exec_argv(const CommandScene& scene,
                                       const sdk::ExecRequest& request, std::size_t stdin_size);

}  // namespace vc::kubernetes
