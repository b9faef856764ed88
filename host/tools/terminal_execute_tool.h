// terminal_execute_tool.h — the terminal_execute tool: run one command on the computer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "computers/computer_registry.h"
#include "mcp/tool.h"
#include "tools/tool_catalog.h"
#include "tools/visible_terminal.h"

namespace vc::tools {

class TerminalExecuteTool : public mcp::Tool {
 public:
  // `registry` must outlive the tool.
  TerminalExecuteTool(computers::ComputerSettings settings, computers::ComputerRegistry& registry,
                      std::string description);

  const mcp::ToolDefinition& definition() const override;

  // [loop-thread] Validates the arguments, then runs the command through the registry
  // (acquiring the computer on first use, with its progress forwarded to the client).
  // Invalid input, a computer that cannot be acquired and a dead computer are isError
  // results; a non-zero exit, a timeout and an output overflow are not.
  void call(std::shared_ptr<mcp::ToolCall> call) override;

 private:
  std::shared_ptr<const computers::ComputerSettings> settings_;  // the registry's, copied
                                                                  // for calls outliving the tool
  computers::ComputerRegistry& registry_;
  std::shared_ptr<VisibleTerminal> visible_terminal_;  // shared with calls that outlive the tool
  mcp::ToolDefinition definition_;
};

std::unique_ptr<mcp::Tool> make_terminal_execute_tool(const CatalogContext& context);

}  // namespace vc::tools
