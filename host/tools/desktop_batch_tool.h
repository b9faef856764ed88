// desktop_batch_tool.h — desktop_actions: several steps of an agent's turn in one call.
//
// The steps (desktop_batch_steps.h) are all checked before any runs; they run in order, each
// settling as its single tool would, and the batch stops at the first step that fails. The
// result lists one result per step that ran, says which step failed and which never ran, and
// ends with one observation of the settled screen (a screenshot unless `observe` says
// otherwise). One of the desktop tools (desktop_tools.h).
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

// [loop-thread] Appends desktop_actions to `tools`.
void add_batch_tool(const DesktopToolsContext& context, std::vector<std::unique_ptr<mcp::Tool>>& tools);

}  // namespace vc::tools
