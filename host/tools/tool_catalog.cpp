// tool_catalog.cpp — the exposed tools, in tools/list order. One line per tool.
#include "tools/tool_catalog.h"

#include "tools/checkpoint_tools.h"
#include "tools/computer_status_tools.h"
#include "tools/file_tools.h"
#include "tools/lifecycle_tools.h"
#include "tools/process_output_tool.h"
#include "tools/process_tools.h"
#include "tools/terminal_execute_tool.h"

namespace vc::tools {

std::vector<std::unique_ptr<mcp::Tool>> make_tool_catalog(const CatalogContext& context) {
  std::vector<std::unique_ptr<mcp::Tool>> tools;
  tools.push_back(make_terminal_execute_tool(context));
  for (auto& tool : make_computer_status_tools(context)) tools.push_back(std::move(tool));
  for (auto& tool : make_file_tools(context)) tools.push_back(std::move(tool));
  if (context.process_tools) {
    auto process_tools = make_process_tools(context);
    // The App's view of them, and its hands on them, come with them.
    if (!process_tools.empty()) {
      for (auto& tool : make_process_app_tools(context)) process_tools.push_back(std::move(tool));
    }
    for (auto& tool : process_tools) tools.push_back(std::move(tool));
  }
  if (context.checkpoint_tools) {
    for (auto& tool : make_checkpoint_tools(context)) tools.push_back(std::move(tool));
  }
  if (context.lifecycle_tools) {
    for (auto& tool : make_lifecycle_tools(context)) tools.push_back(std::move(tool));
  }
  return tools;
}

}  // namespace vc::tools
