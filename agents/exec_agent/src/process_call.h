// process_call.h — `vc-exec-agent process-call`: one request to the process supervisor.
//
// Reads one JSON request from stdin, hands it to the supervisor on its Unix socket (starting the
// supervisor when none answers), prints the one JSON answer on stdout and exits 0, or prints
// {"error": {"code", "message"}} and exits 1 (docs/processes.md, "The supervisor's protocol").
// The plugins run it through the exec agent as an ordinary command. Single-threaded.
#pragma once

namespace vc::exec_agent {

// The program's exit status.
int run_process_call();

}  // namespace vc::exec_agent
