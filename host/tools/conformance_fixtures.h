// conformance_fixtures.h — the tools, resources and prompts the official MCP conformance suite
// calls (@modelcontextprotocol/conformance, server scenarios), registered only with
// --conformance-fixtures.
//
// A test aid, off by default and never part of the product's surface: it lets the whole suite
// run against this server, including the scenarios that exercise in-call logging and progress,
// server-to-client sampling and elicitation, embedded resources and binary content.
//
// [loop-thread] for every member.
#pragma once

#include <memory>
#include <vector>

#include <uv.h>

#include "mcp/content_catalog.h"
#include "mcp/tool.h"

namespace vc::tools {

// The fixture tools; `loop` runs their short delays.
std::vector<std::unique_ptr<mcp::Tool>> make_conformance_fixture_tools(uv_loop_t* loop);

// The fixture resources (test://static-text, test://static-binary, the template
// test://template/{id}/data) and prompts.
std::unique_ptr<mcp::ContentCatalog> make_conformance_fixture_catalog();

}  // namespace vc::tools
