// process_output_tool.h — `process_output`, the App's view of a process's output (docs/app.md,
// "Processes"). App-only: hidden from the model. Offered with the process tools.
//
//   {process_id, stdout_offset?: integer ≥ 0 (0), stderr_offset?: integer ≥ 0 (0),
//    wait_ms?: 0..30000 (0)}
//   → the process as process_read answers it (docs/processes.md), with its output from the
//     offsets on (at most 64 KiB a call), and "stdout_offset"/"stderr_offset": where the next
//     call starts. With wait_ms it waits up to that long for output past the offsets.
//
// It reads with the extension's "from", so the agent's own read position does not move: what
// the App shows, process_read still returns. [loop-thread].
#pragma once

#include <memory>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The context's registry outlives the tool.
std::unique_ptr<mcp::Tool> make_process_output_tool(const CatalogContext& context);

}  // namespace vc::tools
