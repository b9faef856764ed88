// tool_call_support.cpp — see tool_call_support.h.
#include "tools/tool_call_support.h"

namespace vc::tools {

void cancel_with(const std::shared_ptr<mcp::ToolCall>& call, const CancelHandle& running) {
  std::weak_ptr<Cancellable> weak = running;
  call->on_cancel([weak] {
    if (auto live = weak.lock()) live->cancel();
  });
}

mcp::ToolResult error_payload(const std::string& message) {
  return mcp::ToolResult::from_payload(Json{{"error", message}}, /*is_error=*/true);
}

}  // namespace vc::tools
