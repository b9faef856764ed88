// computer_status_tools.h — computer_ui, runtime_status, set_network_access and
// set_desktop_environment (docs/desktop.md): what the computer is and how it is set up, and
// switching its network or its Xfce desktop on or off.
//
// computer_ui acquires the computer (creating it on first use) and reports its live state;
// runtime_status never acquires anything and reports what this server knows. On Linux the
// container runtime needs no preparation, so the eight runtime_* fields always say "ready".
// runtime_status shows an acquisition's progress (an image build) as "working".
// The two switches acquire the computer, then change it for real, in place.
#pragma once

#include <memory>
#include <vector>

#include "mcp/tool.h"
#include "tools/tool_catalog.h"

namespace vc::tools {

// The four tools, in tools/list order. The context's registry and lifecycle outlive them.
std::vector<std::unique_ptr<mcp::Tool>> make_computer_status_tools(const CatalogContext& context);

}  // namespace vc::tools
