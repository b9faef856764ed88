// session_tool_call.cpp — see session_tool_call.h.
#include "mcp/session_tool_call.h"

#include <cmath>
#include <utility>

#include <spdlog/spdlog.h>

#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"

namespace vc::mcp {
namespace {

// 3 rather than 3.0 on the wire when the value is whole: what clients show to people.
Json number_json(double value) {
  if (std::isfinite(value) && std::trunc(value) == value && std::fabs(value) < 9.0e15) {
    return static_cast<int64_t>(value);
  }
  return value;
}

}  // namespace

SessionToolCall::SessionToolCall(ToolCallOwner& owner, Json request_id, std::string tool_name,
                                 Json arguments, Json progress_token, uint64_t session_serial,
                                 RequestContext context)
    : owner_(&owner),
      request_id_(std::move(request_id)),
      tool_name_(std::move(tool_name)),
      arguments_(std::move(arguments)),
      progress_token_(std::move(progress_token)),
      session_serial_(session_serial),
      context_(std::move(context)) {}

const Json& SessionToolCall::arguments() const { return arguments_; }

void SessionToolCall::report_progress(double progress, std::optional<double> total,
                                      const std::string& message) {
  if (!in_flight()) return;
  if (!message.empty()) owner_->call_status(*this, message);
  if (progress_token_.is_null() || !std::isfinite(progress)) return;
  // The spec requires progress to increase with every notification.
  if (last_progress_ && progress <= *last_progress_) return;
  last_progress_ = progress;
  Json params{{"progressToken", progress_token_}, {"progress", number_json(progress)}};
  if (total) params["total"] = number_json(*total);
  if (!message.empty()) params["message"] = message;
  owner_->send(jsonrpc::make_notification("notifications/progress", std::move(params)),
               request_id_);
}

void SessionToolCall::log(LogLevel level, const Json& data) {
  if (!in_flight()) return;
  // A 2026 request gets log messages only when it asked for them, from the level it named.
  const bool enabled = context_.stateless
                           ? context_.envelope.log_level && level >= *context_.envelope.log_level
                           : owner_->log_enabled(level);
  if (!enabled) return;
  owner_->send(jsonrpc::make_notification(
                   "notifications/message",
                   Json{{"level", log_level_name(level)}, {"logger", tool_name_}, {"data", data}}),
               request_id_);
}

bool SessionToolCall::client_supports(const std::string& capability) const {
  if (!in_flight()) return false;
  return context_.stateless ? context_.envelope.client_capabilities.contains(capability)
                            : owner_->client_supports(capability);
}

void SessionToolCall::request_client(const std::string& method, Json params,
                                     std::function<void(Expected<Json> result)> done) {
  if (!in_flight()) return;
  if (context_.stateless) {
    // The 2026 revision has no requests from server to client: a server asks by returning an
    // input-required result, and the client calls again with the answers.
    if (done) {
      done(Failure{-1, "cannot send " + method + " to the client: a 2026-07-28 request is "
                       "answered without requests back to its client"});
    }
    return;
  }
  std::weak_ptr<SessionToolCall> weak_self = shared_from_this();
  owner_->send_client_request(
      method, std::move(params), request_id_,
      [weak_self, done = std::move(done)](Expected<Json> result) {
        auto self = weak_self.lock();
        if (self && self->in_flight() && done) done(std::move(result));
      });
}

void SessionToolCall::on_cancel(std::function<void()> handler) {
  if (finished_) return;
  if (cancelled_) {
    // Cancelled before the tool got round to registering: run it at once, exactly once.
    if (handler) handler();
    return;
  }
  cancel_handler_ = std::move(handler);
}

bool SessionToolCall::cancelled() const { return cancelled_; }

bool SessionToolCall::become_task(const std::string& status_message) {
  if (!in_flight()) return false;
  if (task_) return true;
  const auto keep_alive = shared_from_this();  // the session drops its reference
  task_ = owner_->take_as_task(*this, status_message);
  return task_;
}

void SessionToolCall::finish(ToolResult result) {
  if (finished_) return;
  finished_ = true;
  cancel_handler_ = nullptr;  // drop whatever the handler captured
  if (!in_flight()) return;   // cancelled: the request is never answered
  const auto keep_alive = shared_from_this();  // the owner drops its reference below
  std::exchange(owner_, nullptr)->call_finished(*this, std::move(result));
}

void SessionToolCall::cancel() {
  if (finished_ || cancelled_) return;
  cancelled_ = true;
  owner_ = nullptr;
  auto handler = std::exchange(cancel_handler_, nullptr);
  if (!handler) return;
  try {
    handler();
  } catch (const std::exception& error) {
    spdlog::error("cancelling {} failed: {}", tool_name_, error.what());
  }
}

}  // namespace vc::mcp
