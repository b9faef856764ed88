// tool_call_support.h — what every tool does with its call: stop the work when the client
// cancels, and report a failure the way the original did.
#pragma once

#include <memory>
#include <string>

#include "common/cancellable.h"
#include "mcp/tool.h"

namespace vc::tools {

// [loop-thread] Cancelling `call` (the client's notifications/cancelled, or shutdown) cancels
// `running`, if it is still alive. Replaces the call's earlier cancel handler.
void cancel_with(const std::shared_ptr<mcp::ToolCall>& call, const CancelHandle& running);

// isError with the payload {"error": message}.
mcp::ToolResult error_payload(const std::string& message);

}  // namespace vc::tools
