// session_tool_call.h — one tools/call request in flight: the ToolCall a tool works with.
//
// The call reports back to its owner through ToolCallOwner while it is in flight: its session,
// or, once it became a task, the task store (task_store.h), which outlives the request's
// session. Once it is finished, cancelled or detached it never touches an owner again, so a
// tool may keep its shared_ptr for as long as it likes (for example until a cancelled backend
// op completes).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/json.h"
#include "mcp/request_context.h"
#include "mcp/tool.h"

namespace vc::mcp {

class SessionToolCall;

// What an in-flight call needs from its session. [loop-thread]
class ToolCallOwner {
 public:
  virtual ~ToolCallOwner() = default;
  // `related_request` is the id of the request the message belongs to (null: none); the HTTP
  // transport sends it on that request's stream.
  virtual void send(const Json& message, const Json& related_request) = 0;
  virtual bool log_enabled(LogLevel level) const = 0;
  // The call's result, delivered once; the owner answers the request and forgets the call.
  virtual void call_finished(SessionToolCall& call, ToolResult result) = 0;
  virtual bool client_supports(const std::string& capability) const = 0;
  // Sends a request to the client, tied to `related_request`; `done` gets its answer.
  virtual void send_client_request(const std::string& method, Json params,
                                   const Json& related_request,
                                   std::function<void(Expected<Json>)> done) = 0;
  // The call asks to go on as a task (ToolCall::become_task): true when the owner made it
  // one, answered its request and handed it to its new owner (transfer_to).
  virtual bool take_as_task(SessionToolCall& call, const std::string& status_message) = 0;
  // What the call says it is doing now (its progress messages); a task shows it.
  virtual void call_status(SessionToolCall& /*call*/, const std::string& /*message*/) {}
};

class SessionToolCall final : public ToolCall,
                              public std::enable_shared_from_this<SessionToolCall> {
 public:
  // `progress_token` is the request's _meta.progressToken, null when it had none. `context`:
  // the request's era; a 2026 request's own capabilities and log level decide what the call
  // may send its client, not the session's.
  SessionToolCall(ToolCallOwner& owner, Json request_id, std::string tool_name, Json arguments,
                  Json progress_token, uint64_t session_serial, RequestContext context = {});

  const Json& arguments() const override;
  void report_progress(double progress, std::optional<double> total,
                       const std::string& message) override;
  void log(LogLevel level, const Json& data) override;
  void on_cancel(std::function<void()> handler) override;
  bool cancelled() const override;
  uint64_t session_serial() const override { return session_serial_; }
  bool client_supports(const std::string& capability) const override;
  void request_client(const std::string& method, Json params,
                      std::function<void(Expected<Json> result)> done) override;
  void finish(ToolResult result) override;
  bool asks_with_input_required() const override { return context_.stateless; }
  const Json& input_responses() const override { return input_responses_; }
  const Json& request_state() const override { return request_state_; }
  bool become_task(const std::string& status_message) override;
  bool is_task() const override { return task_; }

  // [loop-thread] The owner that took the call as a task hands it to the task store, which
  // owns it from now on; `task`: the call runs as a task from its start (a later round).
  void transfer_to(ToolCallOwner& owner) { owner_ = &owner; }
  void mark_task() { task_ = true; }

  // [loop-thread] Before the tool runs: the answers and the opened state of this round.
  void set_input_round(Json responses, Json state) {
    input_responses_ = std::move(responses);
    request_state_ = std::move(state);
  }

  const Json& request_id() const { return request_id_; }
  const RequestContext& context() const { return context_; }
  const std::string& tool_name() const { return tool_name_; }

  // [loop-thread] The client cancelled the request or the server is shutting down: runs the
  // cancel handler (now, or as soon as one is set) and never answers. The session has
  // already forgotten the call.
  void cancel();

 private:
  bool in_flight() const { return owner_ != nullptr; }

  ToolCallOwner* owner_;  // null once finished or cancelled
  Json request_id_;
  std::string tool_name_;
  Json arguments_;
  Json progress_token_;
  std::optional<double> last_progress_;
  std::function<void()> cancel_handler_;
  bool cancelled_ = false;
  bool finished_ = false;
  bool task_ = false;
  uint64_t session_serial_;
  RequestContext context_;
  Json input_responses_;
  Json request_state_;
};

}  // namespace vc::mcp
