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
  // The coordinate space of the caller's session (screen_space.h).
  ScreenSpace& screen_space() { return context_.tool_set->screen_space(call_->session_serial()); }

  // Acquires the computer, checks its desktop is live, then runs `body`.
  void begin(std::function<void()> body);
  // Runs one agent action; `next` gets its result. A failure ends the call with the error.
  // An input action (a click, a key, typed text, ...) settles unless the call's `settle`
  // argument is false: the agent answers once the screen has caught up, and says whether
  // anything was drawn (docs/desktop.md, "Settling").
  void run(Json action, std::function<void(Json result)> next);
  // As run, but a failure goes to `done` too instead of ending the call (a batch's step).
  void attempt(Json action, std::function<void(Expected<Json> result)> done);
  // Ends the call: {computer_id, desktop_url, ...fields}; after input actions also `effect`
  // (whether the screen changed, when they settled) and `coordinates` (the session's space);
  // with the call's `observe` argument, the observation (desktop_observation.h).
  void succeed(Json fields);
  // As succeed, with the result marked as an error when `is_error` (a batch that stopped at a
  // failed step) and `content` (images a step returned) after the payload's text.
  void conclude(Json fields, bool is_error, Json content);
  // What `observe` means when the call's arguments leave it out ("none" unless set).
  void set_default_observe(std::string observe) { default_observe_ = std::move(observe); }
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
  bool input_sent_ = false;   // an input action ran
  bool settled_ = false;      // ... and the agent settled it
  bool effect_ = false;       // ... and something was drawn after one
  std::string default_observe_ = "none";
};

}  // namespace vc::tools
