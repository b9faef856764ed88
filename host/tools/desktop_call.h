// desktop_call.h — one call of a desktop tool: check the desktop is live, run its actions on
// the desktop agent one after another, answer with the original's payload shape
// {computer_id, desktop_url, ...response} or {"error": message}.
//
// [loop-thread].
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "common/cancellable.h"
#include "common/json.h"
#include "computers/computer_registry.h"
#include "mcp/tool.h"
#include "tools/desktop_tool_set.h"

namespace vc::tools {

// What every desktop tool shares.
struct DesktopToolsContext {
  computers::ComputerRegistry* registry = nullptr;
  DesktopToolSet* tool_set = nullptr;
};

// The message of a desktop tool called while the desktop is not live (the original's).
inline constexpr const char* kNoLiveDesktop = "The configured computer has no live Xfce desktop.";

class DesktopCall : public std::enable_shared_from_this<DesktopCall> {
 public:
  DesktopCall(DesktopToolsContext context, std::shared_ptr<mcp::ToolCall> call);

  const Json& arguments() const { return call_->arguments(); }
  ScreenSpace& screen_space() { return context_.tool_set->screen_space(); }

  // Acquires the computer, checks its desktop is live, then runs `body`.
  void begin(std::function<void()> body);
  // Runs one agent action; `next` gets its result. A failure ends the call with the error.
  void run(Json action, std::function<void(Json result)> next);
  // Ends the call: {computer_id, desktop_url, ...fields}.
  void succeed(Json fields);
  // Ends the call with a prepared result (images).
  void finish(mcp::ToolResult result);
  void fail(const std::string& message);

  // {computer_id, desktop_url} of the computer in use.
  Json identity() const;

 private:
  DesktopToolsContext context_;
  std::shared_ptr<mcp::ToolCall> call_;
  std::shared_ptr<CancelHandle> running_ = std::make_shared<CancelHandle>();
  bool finished_ = false;
};

}  // namespace vc::tools
