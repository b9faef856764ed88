// desktop_resources.h — the screen resources (docs/compatibility.md, "Resources"):
//   computer://screen/current.png          "Current Computer Screen", image/png, the live
//                                           framebuffer as a blob
//   computer://screen/accessibility.json   "Current Screen Accessibility Snapshot",
//                                           application/json, the snapshot pretty-printed
// listed and readable only while the desktop is live (a read otherwise is a JSON-RPC error
// saying so). Everything else is answered by the catalog it wraps (may be null).
//
// [loop-thread].
#pragma once

#include <memory>

#include "computers/computer_registry.h"
#include "mcp/content_catalog.h"
#include "tools/desktop_tool_set.h"

namespace vc::tools {

std::unique_ptr<mcp::ContentCatalog> make_desktop_resource_catalog(
    computers::ComputerRegistry& registry, DesktopToolSet& tool_set,
    std::unique_ptr<mcp::ContentCatalog> inner);

}  // namespace vc::tools
