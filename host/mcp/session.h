// session.h — one MCP session: the server side of the protocol, independent of transport.
//
// A transport hands the session one incoming message at a time (a raw line or parsed JSON)
// and gives it a callback for outgoing messages. The session answers the lifecycle and
// utility methods itself and hands tools/call to the Tool objects it was given, which run
// asynchronously: a slow call never delays other requests (ping, tools/list, more calls).
//
// Both eras of the protocol (protocol_era.h) are served, told apart per message: a request
// whose params._meta names a protocol version is a 2026-07-28 request, served with what its
// own envelope says (capabilities, log level) and answered with `resultType`, the server's
// identity in `_meta` and cache hints on lists; it needs no `initialize`. Every other message
// is 2025 traffic, served as the session's `initialize` fixed. A stdio process has one
// session for both eras; the HTTP transport gives each 2026 request a session of its own.
//
// Decisions (MCP 2025-11-25 leaves these to the server):
//  - Before `initialize` only `initialize` and `ping` are served; any other request gets
//    -32600 "Invalid Request: the session is not initialized; send initialize first".
//    notifications/initialized is not awaited: some clients send requests right after the
//    initialize response. A second `initialize` is -32600 too.
//  - An unknown protocolVersion is answered with our latest; the client decides whether it
//    can speak it.
//  - A tools/call whose id is already in flight is -32600 (ids must be unique).
//  - notifications/message is sent at `info` and above until the client sends
//    logging/setLevel.
//  - Responses from the client answer the requests tools sent it (sampling, elicitation);
//    a response to no such request is ignored.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/json.h"
#include "mcp/catalog_changes.h"
#include "mcp/content_catalog.h"
#include "mcp/protocol_era.h"
#include "mcp/request_context.h"
#include "mcp/request_state.h"
#include "mcp/session_tool_call.h"
#include "mcp/task_store.h"
#include "mcp/tool.h"

namespace vc::mcp {

// MCP's error code for a resource URI the server does not know.
inline constexpr int kResourceNotFound = -32002;

// Protocol versions this server speaks, newest first.
inline constexpr const char* kSupportedProtocolVersions[] = {"2025-11-25", "2025-06-18",
                                                             "2025-03-26"};

// The version the server answers an initialize with: the client's if supported, otherwise
// our latest.
std::string negotiate_protocol_version(const std::string& requested);

struct SessionOptions {
  std::string server_name = "MCP Virtual Computer";
  std::string server_version;  // serverInfo.version
  std::optional<std::string> instructions;
  size_t tools_page_size = 50;  // tools/list page size; 0 = everything on one page
  // Resources and prompts; null publishes none. Borrowed: must outlive the session.
  const ContentCatalog* catalog = nullptr;
  // Which tools exist right now, and when that changes (catalog_changes.h); null: all of
  // `tools`, always. Borrowed: must outlive the session.
  CatalogChanges* changes = nullptr;
  // Told of every tools/call request (after its arguments were validated) and of its result;
  // for the activity feed (activity_feed.h). May be empty.
  std::function<void(const std::string& tool, const Json& arguments)> on_tool_request;
  std::function<void(const std::string& tool, const Json& arguments, const Json& result)>
      on_tool_result;
  // Seals and opens the state of input-required results (request_state.h). Processes that
  // serve one set of computers share one key; null: a random key for this session alone.
  std::shared_ptr<const RequestStateSeal> request_state_seal;
  // capabilities.extensions of the initialize and server/discover results (e.g. the MCP Apps
  // extension); null: none.
  Json extensions;
  // The process's tasks (task_store.h): with a store, 2026-07-28 requests that declare the
  // tasks extension may be answered with tasks, and tasks/get, tasks/update and tasks/cancel
  // are served; null: the extension is not offered. Borrowed: must outlive the session.
  TaskStore* tasks = nullptr;
};

// [loop-thread] for every member.
class Session final : private ToolCallOwner {
 public:
  // `related_request`: the id of the request a message answers or belongs to (its progress
  // and log notifications); null for a message that belongs to no request.
  using SendFn = std::function<void(const Json& message, const Json& related_request)>;

  // `tools` are borrowed and must outlive the session and every call it started.
  Session(std::vector<Tool*> tools, SessionOptions options, SendFn send);
  // Cancels the calls still in flight (their results are never sent).
  ~Session() override;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // One complete line from the client, without its line terminator.
  void receive_line(std::string_view line);
  // One parsed message.
  void receive(const Json& message);
  // A line the transport could not deliver (e.g. larger than its limit): a parse error reply.
  void reject_unreadable_line(const std::string& reason);

  // Cancels every call in flight, as if the client had cancelled each. Used at shutdown.
  void cancel_all_calls();

  size_t calls_in_flight() const { return calls_.size(); }
  // subscriptions/listen requests open (2026 era).
  size_t listens_open() const { return listens_.size(); }
  bool initialized() const { return initialized_; }
  // The negotiated version; empty before initialize.
  const std::string& protocol_version() const { return protocol_version_; }

 private:
  using Handler = void (Session::*)(const RequestContext& context, const Json& id,
                                    const Json& params);
  void send(const Json& message, const Json& related_request) override;
  bool log_enabled(LogLevel level) const override;
  void call_finished(SessionToolCall& call, ToolResult result) override;
  bool client_supports(const std::string& capability) const override;
  void send_client_request(const std::string& method, Json params, const Json& related_request,
                           std::function<void(Expected<Json>)> done) override;
  void receive_client_response(const Json& id, const Json& message);
  bool take_as_task(SessionToolCall& call, const std::string& status_message) override;

  void handle_request(const Json& id, const std::string& method, const Json& params);
  void handle_stateless_request(const Json& id, const std::string& method, const Json& params);
  void dispatch(Handler handler, const std::string& method, const RequestContext& context,
                const Json& id, const Json& params);
  void handle_notification(const std::string& method, const Json& params);

  void initialize(const RequestContext& context, const Json& id, const Json& params);
  void discover(const RequestContext& context, const Json& id, const Json& params);
  void listen(const RequestContext& context, const Json& id, const Json& params);
  void ping(const RequestContext& context, const Json& id, const Json& params);
  void list_tools(const RequestContext& context, const Json& id, const Json& params);
  void call_tool(const RequestContext& context, const Json& id, const Json& params);
  void set_log_level(const RequestContext& context, const Json& id, const Json& params);
  void list_resources(const RequestContext& context, const Json& id, const Json& params);
  void list_resource_templates(const RequestContext& context, const Json& id,
                               const Json& params);
  void read_resource(const RequestContext& context, const Json& id, const Json& params);
  void subscribe_resource(const RequestContext& context, const Json& id, const Json& params);
  void list_prompts(const RequestContext& context, const Json& id, const Json& params);
  void get_prompt(const RequestContext& context, const Json& id, const Json& params);
  void complete(const RequestContext& context, const Json& id, const Json& params);
  void get_task(const RequestContext& context, const Json& id, const Json& params);
  void update_task(const RequestContext& context, const Json& id, const Json& params);
  void cancel_task(const RequestContext& context, const Json& id, const Json& params);
  void cancel_request(const Json& params);

  // Whether a request may use tasks: the server keeps them and the 2026 request declared the
  // extension. tasks_allowed() answers `id` with -32021 when it may not.
  bool offers_tasks(const RequestContext& context) const;
  bool tasks_allowed(const RequestContext& context, const Json& id, const std::string& method);
  // The task a tasks/* request names, or nullopt after answering it with an error.
  std::optional<std::string> task_id_of(const Json& id, const std::string& method,
                                        const Json& params);
  void notify_task_listeners(const Json& detailed_task);
  void reply_unknown_task(const Json& id, const std::string& task_id);

  Json server_capabilities(bool stateless) const;
  void start_call(const RequestContext& context, Tool& tool, const Json& id, Json arguments,
                  Json progress_token, Json input_responses, Json request_state);
  // A 2026 round after an input-required result: the answers and the opened state, or false
  // after answering the request with an error (malformed answers, a refused state).
  bool read_input_round(const Json& id, const std::string& tool, const Json& params,
                        const Json& arguments, Json& responses, Json& state);
  // Answers `id`; a 2026 request's result gets its resultType and the server's identity.
  void reply(const RequestContext& context, const Json& id, Json result);
  // A list or a read for a 2026 request: how long a client may keep it (ms), for everyone.
  void reply_cacheable(const RequestContext& context, const Json& id, Json result,
                       int64_t ttl_ms);
  void announce_catalog_change();
  void close_listens();
  bool tool_listed(const Tool& tool) const;
  void reply_error(const Json& id, int code, const std::string& message, Json data = nullptr);

  std::vector<Tool*> tools_;
  std::unordered_map<std::string, Tool*> tools_by_name_;
  SessionOptions options_;
  SendFn send_;
  bool initialized_ = false;
  std::string protocol_version_;
  uint64_t serial_;  // ToolCall::session_serial()
  LogLevel log_threshold_ = LogLevel::info;
  Json client_capabilities_ = Json::object();
  // Requests this server sent to the client, by id, waiting for the client's answer.
  uint64_t next_client_request_ = 1;
  std::map<std::string, std::function<void(Expected<Json>)>> client_requests_;
  // In-flight tools/call requests by their id's JSON text (so 1 and "1" stay distinct).
  std::map<std::string, std::shared_ptr<SessionToolCall>> calls_;
  // Open subscriptions/listen requests by their id's JSON text: the id, and which kinds of
  // change each one gets (the acknowledged filter).
  struct Listen {
    Json id;
    bool tools = false;
    bool resources = false;
    std::vector<std::string> task_ids;  // notifications/tasks for these
  };
  std::map<std::string, Listen> listens_;
  CatalogChanges::Subscription catalog_subscription_;
  uint64_t task_watch_ = 0;  // the store's watch while a listen follows tasks; 0: none
  // Expires with the session: asynchronous resource reads answer only a live session.
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace vc::mcp
