// desktop_call.cpp — see desktop_call.h.
#include "tools/desktop_call.h"

#include <utility>

#include "computers/desktop_action.h"
#include "tools/desktop_observation.h"
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

namespace {

bool is_input_action(const Json& action) {
  const std::string name = action.value("action", "");
  return name == "click" || name == "mouse_button" || name == "drag" || name == "scroll" ||
         name == "press_keys" || name == "type" || name == "pointer_move" ||
         name == "element_action";
}

}  // namespace

void DesktopCall::run(Json action, std::function<void(Json result)> next) {
  auto self = shared_from_this();
  attempt(std::move(action), [self, next = std::move(next)](Expected<Json> result) {
    if (!result) return self->fail(result.error().message);
    next(std::move(result).value());
  });
}

void DesktopCall::attempt(Json action, std::function<void(Expected<Json> result)> done) {
  if (finished_ || call_->cancelled()) return;
  if (is_input_action(action)) {
    input_sent_ = true;
    if (arguments().value("settle", true)) action["settle"] = true;
  }
  auto self = shared_from_this();
  *running_ = computers::run_desktop_action(
      *context_.registry, std::move(action),
      [self, done = std::move(done)](Expected<Json> result) {
        if (self->finished_ || self->call_->cancelled()) return;
        if (result) {
          const Json& answer = result.value();
          if (answer.is_object() && answer.contains("effect") && answer["effect"].is_boolean()) {
            self->settled_ = true;
            self->effect_ = self->effect_ || answer["effect"].get<bool>();
          }
        }
        done(std::move(result));
      });
}

Json DesktopCall::identity() const {
  auto computer = context_.registry->current();
  Json out = Json::object();
  out["computer_id"] = computer ? computer->computer_id : context_.registry->settings().computer_id;
  out["desktop_url"] = computer && computer->desktop_url ? Json(*computer->desktop_url) : Json();
  return out;
}

void DesktopCall::succeed(Json fields) { conclude(std::move(fields), false, Json::array()); }

void DesktopCall::conclude(Json fields, bool is_error, Json content) {
  if (finished_) return;
  Json payload = identity();
  for (auto& [key, value] : fields.items()) payload[key] = std::move(value);
  if (input_sent_) {
    if (settled_) payload["effect"] = effect_;
    payload["coordinates"] = screen_space().describe();
  }
  finish_with_observation(shared_from_this(), arguments().value("observe", default_observe_),
                          std::move(payload), is_error, std::move(content));
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
