// desktop_call.cpp — see desktop_call.h.
#include "tools/desktop_call.h"

#include <utility>

#include "computers/desktop_action.h"
#include "tools/tool_call_support.h"

namespace vc::tools {

DesktopCall::DesktopCall(DesktopToolsContext context, std::shared_ptr<mcp::ToolCall> call)
    : context_(context), call_(std::move(call)) {
  std::weak_ptr<CancelHandle> running = running_;
  call_->on_cancel([running] {
    auto handle = running.lock();
    if (handle && *handle) (*handle)->cancel();
  });
}

void DesktopCall::begin(std::function<void()> body) {
  auto self = shared_from_this();
  CancelHandle acquiring = context_.registry->acquire(
      nullptr, [self, body = std::move(body)](Expected<computers::ComputerInfo> computer) {
        if (!computer) return self->fail(computer.error().message);
        if (!desktop_live(computer.value())) return self->fail(kNoLiveDesktop);
        body();
      });
  // A computer already in use is handed over at once, inside acquire(): the body has then
  // started its first action, and that action's handle is the one a cancel must reach.
  if (!*running_) *running_ = std::move(acquiring);
}

void DesktopCall::run(Json action, std::function<void(Json result)> next) {
  if (finished_ || call_->cancelled()) return;
  auto self = shared_from_this();
  *running_ = computers::run_desktop_action(
      *context_.registry, std::move(action),
      [self, next = std::move(next)](Expected<Json> result) {
        if (self->finished_ || self->call_->cancelled()) return;
        if (!result) return self->fail(result.error().message);
        next(std::move(result).value());
      });
}

Json DesktopCall::identity() const {
  auto computer = context_.registry->current();
  Json out = Json::object();
  out["computer_id"] = computer ? computer->computer_id : context_.registry->settings().computer_id;
  out["desktop_url"] = computer && computer->desktop_url ? Json(*computer->desktop_url) : Json();
  return out;
}

void DesktopCall::succeed(Json fields) {
  Json payload = identity();
  for (auto& [key, value] : fields.items()) payload[key] = std::move(value);
  finish(mcp::ToolResult::from_payload(payload, false));
}

void DesktopCall::finish(mcp::ToolResult result) {
  if (finished_) return;
  finished_ = true;
  call_->finish(std::move(result));
}

void DesktopCall::fail(const std::string& message) {
  if (finished_) return;
  finished_ = true;
  call_->finish(error_payload(message));
}

}  // namespace vc::tools
