// process_tools.h — process_start, process_read, process_write, process_kill and process_list:
// processes that outlive a tool call (docs/processes.md). Offered when the backend's computers
// hold processes, unless --no-process-tools; they act on the server's computer.
//
// Every argument is checked before the backend is asked anything (the bounds of
// vc-backend-1/cpp/process_limits.h, the same the plugins check); failures are {"error": ...}
// with isError, in the backend's words when it refused. Payloads: process_payloads.h.
//
// [loop-thread]: the tools run on the server's loop, as every tool.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The five tools, in tools/list order; none when the backend offers no processes. The
// context's registry outlives them.
std::vector<std::unique_ptr<mcp::Tool>> make_process_tools(const CatalogContext& context);

}  // namespace vc::tools
