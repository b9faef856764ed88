// process_payloads.h — what the process_* tools answer (docs/processes.md): the backend's
// process_info and output documents, shaped for the model.
//
//   {"process_id", "command", "state", "running", "exit_code", "signal"?, "note"?, "pty",
//    "stdout", "stderr" (pipes) | "output" (pty), "stdout_dropped"? / "stderr_dropped"? /
//    "output_dropped"? (only when bytes were lost), "more"? (only when true), "log_paths"}
//
// Pure functions: any thread.
#pragma once

#include "common/json.h"

namespace vc::tools {

// One process and the output a call returned (start, read, write, kill).
Json process_call_payload(const Json& backend_result);

// process_output (the App's): the same, plus "stdout_offset" and "stderr_offset", each
// stream's byte count at the end of what was returned (where the next read starts; a
// terminal's output counts as stdout).
Json process_output_payload(const Json& backend_result);

// process_list: {"processes": [...], "count", "running"}.
Json process_list_payload(const Json& backend_result);

// The output schemas of the two payloads, for tools/list.
Json process_call_output_schema();
Json process_list_output_schema();
Json process_output_output_schema();

}  // namespace vc::tools
