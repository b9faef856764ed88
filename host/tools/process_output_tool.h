// process_output_tool.h — the App's view of a process and its hands on it (docs/app.md,
// "Processes"): `process_output`, `process_input` and `process_signal`. App-only: hidden from
// the model. Offered with the process tools.
//
//   {process_id, stdout_offset?: integer ≥ 0 (0), stderr_offset?: integer ≥ 0 (0),
//    wait_ms?: 0..30000 (0)}
//   → the process as process_read answers it (docs/processes.md), with its output from the
//     offsets on (at most 64 KiB a call), and "stdout_offset"/"stderr_offset": where the next
//     call starts. With wait_ms it waits up to that long for output past the offsets.
//
//   process_input  {process_id, input, stdout_offset?, stderr_offset?, wait_ms?}: the input
//     written (write_process), then the output that follows, read the same way.
//   process_signal {process_id, signal? ("TERM"), stdout_offset?, stderr_offset?}: the signal
//     sent to the process's group (kill_process), and its last output, read the same way.
//
// All three read with the extension's "from", so the agent's own read position does not move:
// what the App shows or the person types, process_read still returns. [loop-thread].
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// process_output, process_input, process_signal. The context's registry outlives them.
std::vector<std::unique_ptr<mcp::Tool>> make_process_app_tools(const CatalogContext& context);

}  // namespace vc::tools
