// computer_status_tools.h — computer_ui, runtime_status and set_network_access (spec §1.5–§1.7):
// what the computer is and how it is set up, and switching its network on or off.
//
// computer_ui acquires the computer (creating it on first use) and reports its live state;
// runtime_status never acquires anything and reports what this server knows. On Linux the
// container runtime needs no preparation, so the eight runtime_* fields always say "ready".
// set_network_access acquires the computer, then changes its network for real.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The three tools, in tools/list order. The context's registry and lifecycle outlive them.
std::vector<std::unique_ptr<mcp::Tool>> make_computer_status_tools(const CatalogContext& context);

}  // namespace vc::tools
