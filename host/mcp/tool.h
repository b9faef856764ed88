// tool.h — what a tool is to the MCP session: a definition for tools/list and a call handler.
//
// The session validates `arguments` against the tool's input schema before calling it
// (a violation becomes an isError result "Input validation error: ..."), so a tool sees only
// well-typed arguments. A tool never talks to a plugin: it goes through the computers room.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "common/failure.h"
#include "common/json.h"

namespace vc::mcp {

// Whether a tool may answer a 2026-07-28 tools/call with a task (the tasks extension,
// task_store.h). Not on the wire: the server alone decides. `optional`: the tool becomes a
// task (ToolCall::become_task) when its work will take long and the request declared the
// extension, and runs as a plain request otherwise. `required`: a call whose request did not
// declare the extension is refused with -32021 before the tool runs.
enum class TaskSupport { forbidden, optional, required };

struct ToolDefinition {
  std::string name;
  std::optional<std::string> title;
  std::string description;
  Json input_schema;   // a JSON Schema object
  Json output_schema;  // null when absent
  Json annotations;    // null when absent
  Json meta;           // "_meta"; null when absent
  TaskSupport task_support = TaskSupport::forbidden;

  Json to_json() const;  // the Tool object of tools/list
};

// A CallToolResult; or, in the 2026 era, an input-required result (the tool asks its client
// and is called again with the answers) or a refusal for a client capability the request did
// not declare.
struct ToolResult {
  Json content = Json::array();
  Json structured_content;  // null when absent
  bool is_error = false;
  // Input required: the questions by key ({"confirm": {"method": "elicitation/create", ...}})
  // and the tool's state for the next round (null: none), sealed by the session.
  Json input_requests;
  Json state;
  // Refused: the capabilities the call needs and the client did not declare (-32021).
  Json required_capabilities;
  // Failed: a JSON-RPC error object ({code, message, data?}) instead of a result: the call
  // could not be carried out at all (a tool error that the model should see is is_error).
  Json protocol_error;

  // content = [{"type":"text","text": <payload as JSON text>}], structuredContent = payload.
  // The text is serialised as the original's json.dumps did: ", " and ": " separators,
  // non-ASCII escaped as \uXXXX, keys in insertion order.
  static ToolResult from_payload(const Json& payload, bool is_error);
  static ToolResult error_text(const std::string& text);  // isError, text content only
  // Only for a call whose asks_with_input_required() is true.
  static ToolResult input_required(Json input_requests, Json state = nullptr);
  static ToolResult missing_capability(Json required_capabilities);
  static ToolResult failed(int code, const std::string& message, Json data = nullptr);
  bool asks_for_input() const { return !input_requests.is_null(); }
  // The JSON-RPC error object the call is answered with instead of a result (a refusal or a
  // failure of `tool`), or null when it has a result.
  Json error_object(const std::string& tool) const;
  Json to_json() const;
};

// MCP log levels (RFC 5424 names), least to most severe.
enum class LogLevel { debug, info, notice, warning, error, critical, alert, emergency };

// One tools/call in flight. [loop-thread] for every member.
class ToolCall {
 public:
  virtual ~ToolCall() = default;
  virtual const Json& arguments() const = 0;
  // Sends notifications/progress if the request carried a progressToken; otherwise nothing.
  // Values must increase; a non-increasing value is dropped.
  virtual void report_progress(double progress, std::optional<double> total,
                               const std::string& message) = 0;
  // notifications/message, if at or above the client's logging/setLevel threshold.
  virtual void log(LogLevel level, const Json& data) = 0;
  // Runs `handler` when the client cancels this request (notifications/cancelled) or the
  // server shuts down. Replaces an earlier handler.
  virtual void on_cancel(std::function<void()> handler) = 0;
  virtual bool cancelled() const = 0;
  // A number that tells the client's session apart from every other session of this server
  // process (never reused): what a tool keeps per session (the desktop's coordinate space) is
  // keyed by it.
  virtual uint64_t session_serial() const = 0;
  // Whether the client declared `capability` ("sampling", "elicitation") at initialize.
  virtual bool client_supports(const std::string& capability) const = 0;
  // Sends a request to the client (sampling/createMessage, elicitation/create) tied to this
  // call, so that over HTTP it travels on the call's stream, and hands the client's result, or
  // its error as a Failure, to `done`. `done` is not called once the call has finished or was
  // cancelled.
  virtual void request_client(const std::string& method, Json params,
                              std::function<void(Expected<Json> result)> done) = 0;
  // Delivers the result. Exactly once; later calls are ignored. After cancellation the result
  // is not sent to the client (the spec says not to answer a cancelled request).
  virtual void finish(ToolResult result) = 0;

  // The 2026 era asks the client by answering with ToolResult::input_required: true when this
  // call may do so (its request is a 2026-07-28 request), false in a 2025 session.
  virtual bool asks_with_input_required() const { return false; }
  // On a round after an input-required result: the client's answers by key (an object), and
  // the state the tool put into that result (verified by the session). Null otherwise.
  virtual const Json& input_responses() const {
    static const Json kNone;
    return kNone;
  }
  virtual const Json& request_state() const {
    static const Json kNone;
    return kNone;
  }

  // The tasks extension (task_store.h): answers the request now with a task its client polls
  // (tasks/get) or listens to, and goes on working; finish() then completes the task, and
  // tasks/cancel cancels the call as notifications/cancelled would. `status_message` says
  // what the task is doing. Only for a tool whose definition allows tasks, and only when the
  // request is a 2026-07-28 request that declared the extension: false otherwise (the call
  // goes on as a plain request, as it would have). True, and nothing changes, when the call
  // already is a task. Called before the call asks for input, a task's questions go to its
  // client through tasks/get and tasks/update; the tool is then called again with the
  // answers, still as a task.
  virtual bool become_task(const std::string& /*status_message*/) { return false; }
  // Whether the call already is a task.
  virtual bool is_task() const { return false; }
};

class Tool {
 public:
  virtual ~Tool() = default;
  virtual const ToolDefinition& definition() const = 0;
  virtual void call(std::shared_ptr<ToolCall> call) = 0;
};

}  // namespace vc::mcp
