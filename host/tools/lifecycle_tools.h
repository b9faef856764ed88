// lifecycle_tools.h — computer_list, computer_create, computer_restart, computer_factory_reset,
// computer_delete and, when the backend keeps checkpoints, computer_fork (docs/compatibility.md,
// "Lifecycle tools"), for orchestrators that manage many computers. Off by default, as in the
// original, where the model gets exactly one computer: only --lifecycle-tools adds them.
//
// Payloads: {computers:[...], count}; {ok, computer_id, sandbox_id, temporary};
// {ok, computer_id, deleted:true}; computer_fork: {ok, computer_id (the new computer),
// sandbox_id, temporary, forked_from, checkpoint (null for the current files)}. Failures are {"error": ...} with isError. Computers made
// here are persistent: temporary=true is refused, because no owner would ever remove them.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The tools, in tools/list order. The context's lifecycle outlives them.
std::vector<std::unique_ptr<mcp::Tool>> make_lifecycle_tools(const CatalogContext& context);

}  // namespace vc::tools
