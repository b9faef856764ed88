// lifecycle_tools.h — computer_list, computer_create, computer_restart, computer_factory_reset
// and computer_delete (docs/compatibility.md, "Lifecycle tools"), for orchestrators that manage
// many computers. Off by
// default, as in the original, where the model gets exactly one computer: only
// --lifecycle-tools adds them.
//
// Payloads: {computers:[...], count}; {ok, computer_id, sandbox_id, temporary};
// {ok, computer_id, deleted:true}. Failures are {"error": ...} with isError. Computers made
// here are persistent: temporary=true is refused, because no owner would ever remove them.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The five tools, in tools/list order. The context's lifecycle outlives them.
std::vector<std::unique_ptr<mcp::Tool>> make_lifecycle_tools(const CatalogContext& context);

}  // namespace vc::tools
