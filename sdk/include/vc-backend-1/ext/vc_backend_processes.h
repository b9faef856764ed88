/* ext/vc_backend_processes.h — backend extension "vc.backend.processes/1" (ABI 1.3).
 *
 * Processes that outlive an op: background servers, long builds, interactive programs and
 * programs in a terminal. A backend whose computers can hold processes started by one op and
 * read, written to and ended by later ones returns this table from
 *   backend->ops->get_extension(backend, VC_EXT_BACKEND_PROCESSES);
 * and NULL when it cannot (the host then offers no process tools).
 *
 * Five operations, each with the vc_async_op_fn contract of vc_backend.h (an accepted op
 * completes exactly once; cancel() may come at any time). Requests and results are JSON
 * documents with schemas in schemas/<op>.request.json and .result.json; a process is
 * schemas/process_info.json, the output a call returns schemas/process_output.json:
 *
 *   start_process   {"computer_id", "command" | "argv", "working_directory"?, "env"?, "pty",
 *                    "rows", "cols", "wait_ms", "max_bytes"}
 *                   -> {"process": process_info, "output": process_output}
 *                   Completes after wait_ms, or once the process ended, whichever is first.
 *   read_process    {"computer_id", "process_id", "wait_ms", "max_bytes",
 *                    "from"?: {"stdout": N, "stderr": N}}
 *                   -> {"process", "output"}: the output since the last read (or from the
 *                   offsets in "from", without moving the read position), as soon as there is
 *                   some, or once the process ended, or after wait_ms.
 *   write_process   {"computer_id", "process_id", "input", "close_stdin", "wait_ms",
 *                    "max_bytes", "from"?} -> {"process", "output"}: the input queued for the
 *                   process's stdin (its terminal, for a pty), then the output that follows,
 *                   as read takes it.
 *   kill_process    {"computer_id", "process_id", "signal", "from"?} -> {"process", "output"}:
 *                   the signal sent to the process's group ("TERM" escalates to "KILL" after
 *                   2 s), and its last output, as read takes it.
 *   list_processes  {"computer_id"} -> {"computer_id", "processes": [process_info...]}, oldest
 *                   first.
 *
 * The processes live in the computer: they outlive the op that started them, the backend's
 * connection to the computer and the host; a restart of the computer ends them (their state
 * becomes "lost"), removing or resetting the computer forgets them. Failures:
 *   VC_E_INVALID_ARGUMENT  a malformed request (the message names the field); nothing was done
 *   VC_E_NOT_FOUND         no such computer, or no such process in it
 *   VC_E_FAILED            with error details code "<plugin>.process_limit" (too many running),
 *                          "<plugin>.stdin_closed" (the process ended or its stdin was
 *                          closed) or "<plugin>.input_backlog" (it does not read its input)
 *   VC_E_UNSUPPORTED       the computer cannot hold processes (the message says why)
 *
 * A published extension struct is frozen: a change means a new "/<rev>" id.
 */
#ifndef VC_BACKEND_1_EXT_BACKEND_PROCESSES_H
#define VC_BACKEND_1_EXT_BACKEND_PROCESSES_H

#include "../vc_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

#define VC_EXT_BACKEND_PROCESSES "vc.backend.processes/1"

typedef struct vc_backend_processes {
  uint32_t struct_size;
  uint32_t reserved0;
  /* Each [loop-thread], must not block; the vc_async_op_fn contract. */
  vc_async_op_fn start_process;
  vc_async_op_fn read_process;
  vc_async_op_fn write_process;
  vc_async_op_fn kill_process;
  vc_async_op_fn list_processes;
} vc_backend_processes;

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_EXT_BACKEND_PROCESSES_H */
