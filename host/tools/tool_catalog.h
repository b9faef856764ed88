// tool_catalog.h — the tools this server exposes, in tools/list order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "mcp/tool.h"

namespace vc::tools {

struct CatalogContext {
  bool lifecycle_tools = false;  // --lifecycle-tools: the computer_* management tools
  computers::ComputerRegistry* registry = nullptr;  // outlives every tool
  computers::ComputerLifecycle* lifecycle = nullptr;  // outlives every tool
  std::string terminal_execute_description;         // from assemble_tool_description()
  // The checkpoint_* tools, when the backend keeps checkpoints; --no-checkpoint-tools: off.
  bool checkpoint_tools = true;
  // The process_* tools, when the backend's computers hold processes; --no-process-tools: off.
  bool process_tools = true;
  // --mount-root (real path): computer_create may mount host folders inside it; empty: none.
  std::string mount_root{};
};

std::vector<std::unique_ptr<mcp::Tool>> make_tool_catalog(const CatalogContext& context);

}  // namespace vc::tools
