// server_extension.h — what a build of the host may add to the server's own tools, resources
// and prompts. The production binary passes none; a test host passes one to serve the parts a
// test suite calls, without those parts ever being compiled into the product.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "mcp/content_catalog.h"
#include "mcp/tool.h"

namespace vc::server {

struct ServerExtension {
  // Logged once (warn level) when a server starts with the extension, so that a log always
  // shows that the process is not serving the product's surface alone.
  std::string notice;

  // [loop-thread] Called once while the server builds its tool catalog: appends the
  // extension's tools to `tools` and returns the catalog of its resources and prompts (null
  // when it has none). `loop` is the server's loop and outlives the tools.
  std::function<std::unique_ptr<mcp::ContentCatalog>(
      uv_loop_t* loop, std::vector<std::unique_ptr<mcp::Tool>>& tools)>
      add_parts;
};

}  // namespace vc::server
