// app_resource.h — the MCP App as a resource (docs/app.md; the MCP Apps extension,
// io.modelcontextprotocol/ui):
//   ui://virtual-computer/computer.html   "Virtual Computer", text/html;profile=mcp-app
// listed always, read from `app_file` on each read, with `_meta.ui` (in the listing and in the
// contents) declaring the one origin the App connects to — the desktop's WebSocket bridge on
// loopback — and no border. A missing file is a JSON-RPC error naming it. Everything else is
// answered by the catalog it wraps (may be null).
//
// [loop-thread].
#pragma once

#include <filesystem>
#include <memory>

#include "common/json.h"
#include "mcp/content_catalog.h"

namespace vc::tools {

// The resource's `_meta`: {"ui": {"csp": {...}, "prefersBorder": false}}.
Json app_resource_meta();

std::unique_ptr<mcp::ContentCatalog> make_app_resource_catalog(
    std::filesystem::path app_file, std::unique_ptr<mcp::ContentCatalog> inner);

}  // namespace vc::tools
