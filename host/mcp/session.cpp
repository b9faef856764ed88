// session.cpp — see session.h.
#include "mcp/session.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include <spdlog/spdlog.h>

#include "mcp/jsonrpc.h"
#include "mcp/log_level.h"
#include "mcp/schema_validator.h"
#include "mcp/tool_list_pages.h"

namespace vc::mcp {
namespace {

// Cache hints of 2026 results: what never changes while the server runs (prompts, templates,
// the App's page, the server's capabilities) for an hour; what changes without warning
// (the tool and resource lists follow the desktop being switched on and off, a screen
// resource follows the screen) is not to be kept: a client listens for list changes instead.
constexpr int64_t kFixedListTtlMs = 3'600'000;
constexpr int64_t kChangingListTtlMs = 0;

// How many tasks one subscriptions/listen may follow.
constexpr size_t kMaxListenedTasks = 100;

constexpr const char* kNotInitialized =
    "Invalid Request: the session is not initialized; send initialize first";

std::string id_key(const Json& id) { return id.dump(); }

// obj[key] when it is a string, else `fallback` (Json::value() would throw on other types).
std::string string_member(const Json& object, const char* key, const char* fallback) {
  const auto member = object.is_object() ? object.find(key) : object.end();
  return member != object.end() && member->is_string() ? member->get<std::string>() : fallback;
}

// obj[key] when it is an integer that fits an int, else 0 (Json::value() would throw on other
// types, and convert an out-of-range number with undefined behaviour).
int int_member(const Json& object, const char* key) {
  const auto member = object.find(key);
  if (member == object.end() || !member->is_number_integer()) return 0;
  if (member->is_number_unsigned()) {
    const auto value = member->get<uint64_t>();
    return value <= static_cast<uint64_t>(std::numeric_limits<int>::max()) ? static_cast<int>(value) : 0;
  }
  const auto value = member->get<int64_t>();
  return value >= std::numeric_limits<int>::min() && value <= std::numeric_limits<int>::max()
             ? static_cast<int>(value)
             : 0;
}

// A missing params member means "no parameters": treat it as an empty object.
const Json& params_object(const Json& params) {
  static const Json kEmpty = Json::object();
  return params.is_null() ? kEmpty : params;
}

// The first of `fields` of `object` that is present but not a string, or nullptr.
const char* first_non_string(const Json& object, std::initializer_list<const char*> fields) {
  for (const char* field : fields) {
    const auto found = object.find(field);
    if (found != object.end() && !found->is_string()) return field;
  }
  return nullptr;
}

}  // namespace

std::string negotiate_protocol_version(const std::string& requested) {
  for (const char* version : kSupportedProtocolVersions) {
    if (requested == version) return requested;
  }
  return kSupportedProtocolVersions[0];
}

namespace {
// [loop-thread] Sessions are made on the loop only.
uint64_t next_session_serial = 1;
}  // namespace

Session::Session(std::vector<Tool*> tools, SessionOptions options, SendFn send)
    : tools_(std::move(tools)),
      options_(std::move(options)),
      send_(std::move(send)),
      serial_(next_session_serial++) {
  if (!options_.request_state_seal) options_.request_state_seal = std::make_shared<RequestStateSeal>();
  for (Tool* tool : tools_) tools_by_name_.emplace(tool->definition().name, tool);
  if (options_.changes != nullptr) {
    catalog_subscription_ = options_.changes->subscribe([this] { announce_catalog_change(); });
  }
}

bool Session::tool_listed(const Tool& tool) const {
  return options_.changes == nullptr || options_.changes->tool_visible(tool.definition().name);
}

void Session::announce_catalog_change() {
  if (initialized_) {
    send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/tools/list_changed"}}, nullptr);
    send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/resources/list_changed"}}, nullptr);
  }
  for (const auto& [key, listen] : listens_) {
    const Json tagged{{"_meta", {{envelope_keys::kSubscriptionId, listen.id}}}};
    if (listen.tools) {
      send(jsonrpc::make_notification("notifications/tools/list_changed", tagged), listen.id);
    }
    if (listen.resources) {
      send(jsonrpc::make_notification("notifications/resources/list_changed", tagged), listen.id);
    }
  }
}

Session::~Session() {
  if (task_watch_ != 0) options_.tasks->unwatch(task_watch_);
  listens_.clear();  // a session that goes away sends nothing more
  cancel_all_calls();
}

void Session::receive_line(std::string_view line) {
  auto parsed = jsonrpc::parse(line);
  if (!parsed) {
    reply_error(nullptr, jsonrpc::kParseError, "Parse error: " + parsed.error().message);
    return;
  }
  receive(parsed.value());
}

void Session::reject_unreadable_line(const std::string& reason) {
  reply_error(nullptr, jsonrpc::kParseError, "Parse error: " + reason);
}

void Session::receive(const Json& message) {
  const jsonrpc::Message classified = jsonrpc::classify(message);
  switch (classified.kind) {
    case jsonrpc::MessageKind::request:
      if (claims_stateless_era(message)) {
        handle_stateless_request(classified.id, classified.method, classified.params);
      } else {
        handle_request(classified.id, classified.method, classified.params);
      }
      return;
    case jsonrpc::MessageKind::notification:
      handle_notification(classified.method, classified.params);
      return;
    case jsonrpc::MessageKind::response:
      receive_client_response(classified.id, message);
      return;
    case jsonrpc::MessageKind::invalid:
      reply_error(classified.id, jsonrpc::kInvalidRequest,
                  "Invalid Request: " + classified.problem);
      return;
  }
}

void Session::handle_request(const Json& id, const std::string& method, const Json& params) {
  static const std::unordered_map<std::string, Handler> kHandlers{
      {"initialize", &Session::initialize},     {"ping", &Session::ping},
      {"tools/list", &Session::list_tools},     {"tools/call", &Session::call_tool},
      {"logging/setLevel", &Session::set_log_level},
      {"resources/list", &Session::list_resources},
      {"resources/templates/list", &Session::list_resource_templates},
      {"resources/read", &Session::read_resource},
      {"resources/subscribe", &Session::subscribe_resource},
      {"resources/unsubscribe", &Session::subscribe_resource},
      {"prompts/list", &Session::list_prompts},
      {"prompts/get", &Session::get_prompt},
      {"completion/complete", &Session::complete},
  };
  const auto handler = kHandlers.find(method);
  if (handler == kHandlers.end()) {
    reply_error(id, jsonrpc::kMethodNotFound, "Method not found: " + method);
    return;
  }
  if (!initialized_ && method != "initialize" && method != "ping") {
    reply_error(id, jsonrpc::kInvalidRequest, kNotInitialized);
    return;
  }
  dispatch(handler->second, method, RequestContext{}, id, params);
}

void Session::handle_stateless_request(const Json& id, const std::string& method,
                                       const Json& params) {
  static const std::unordered_map<std::string, Handler> kHandlers{
      {"server/discover", &Session::discover},
      {"subscriptions/listen", &Session::listen},
      {"tools/list", &Session::list_tools},
      {"tools/call", &Session::call_tool},
      {"resources/list", &Session::list_resources},
      {"resources/templates/list", &Session::list_resource_templates},
      {"resources/read", &Session::read_resource},
      {"prompts/list", &Session::list_prompts},
      {"prompts/get", &Session::get_prompt},
      {"completion/complete", &Session::complete},
      {"tasks/get", &Session::get_task},
      {"tasks/update", &Session::update_task},
      {"tasks/cancel", &Session::cancel_task},
  };
  auto envelope = read_request_envelope(params);
  if (!envelope) {
    const ProtocolError& refused = envelope.error();
    reply_error(id, refused.code, refused.message, refused.data);
    return;
  }
  const auto handler = kHandlers.find(method);
  if (handler == kHandlers.end()) {
    reply_error(id, jsonrpc::kMethodNotFound,
                removed_in_stateless_era(method)
                    ? "Method not found: " + method + " is not part of protocol version " +
                          envelope.value().protocol_version +
                          " (a 2025 client sends it after initialize, without _meta's "
                          "protocol version)"
                    : "Method not found: " + method);
    return;
  }
  dispatch(handler->second, method, RequestContext{true, std::move(envelope).value()}, id, params);
}

void Session::dispatch(Handler handler, const std::string& method, const RequestContext& context,
                       const Json& id, const Json& params) {
  if (!params.is_null() && !params.is_object()) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: params must be an object");
    return;
  }
  try {
    (this->*handler)(context, id, params_object(params));
  } catch (const std::exception& error) {
    spdlog::error("{} failed: {}", method, error.what());
    reply_error(id, jsonrpc::kInternalError, "Internal error: " + std::string(error.what()));
  }
}

void Session::handle_notification(const std::string& method, const Json& params) {
  if (method == "notifications/cancelled") {
    cancel_request(params_object(params));
  } else if (method == "notifications/initialized") {
    spdlog::debug("client reports initialized");
  } else {
    spdlog::debug("ignoring notification {}", method);
  }
}

void Session::initialize(const RequestContext& context, const Json& id, const Json& params) {
  if (initialized_) {
    reply_error(id, jsonrpc::kInvalidRequest, "Invalid Request: the session is already initialized");
    return;
  }
  const auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: initialize needs \"protocolVersion\" (a string)");
    return;
  }
  initialized_ = true;
  protocol_version_ = negotiate_protocol_version(requested->get<std::string>());
  const Json capabilities = params.value("capabilities", Json::object());
  if (capabilities.is_object()) client_capabilities_ = capabilities;
  const Json client = params.value("clientInfo", Json::object());
  spdlog::info("client {} {} asked for protocol {}, using {}",
               string_member(client, "name", "(unnamed)"), string_member(client, "version", "?"),
               requested->get<std::string>(), protocol_version_);

  Json result{
      {"protocolVersion", protocol_version_},
      {"capabilities", server_capabilities(false)},
      {"serverInfo", {{"name", options_.server_name}, {"version", options_.server_version}}},
  };
  if (options_.instructions) result["instructions"] = *options_.instructions;
  reply(context, id, std::move(result));
}

Json Session::server_capabilities(bool stateless) const {
  const bool changes = options_.changes != nullptr;
  // A 2025 subscription is accepted and never fires (nothing published is updated while the
  // server runs); a 2026 listen does not offer resource subscriptions at all.
  Json capabilities{
      {"tools", {{"listChanged", changes}}},
      {"logging", Json::object()},
      {"resources", stateless ? Json{{"listChanged", changes}}
                              : Json{{"subscribe", true}, {"listChanged", changes}}},
      {"prompts", {{"listChanged", false}}},
      {"completions", Json::object()}};
  if (options_.extensions.is_object()) capabilities["extensions"] = options_.extensions;
  // The tasks extension is a 2026-07-28 one: a 2025 session never gets a task.
  if (stateless && options_.tasks != nullptr) {
    capabilities["extensions"][kTasksExtension] = Json::object();
  }
  return capabilities;
}

void Session::discover(const RequestContext& context, const Json& id, const Json& /*params*/) {
  Json result{{"supportedVersions", stateless_protocol_versions()},
              {"capabilities", server_capabilities(true)}};
  if (options_.instructions) result["instructions"] = *options_.instructions;
  reply_cacheable(context, id, std::move(result), kFixedListTtlMs);
}

void Session::listen(const RequestContext& context, const Json& id, const Json& params) {
  const Json filter = params.value("notifications", Json::object());
  if (!filter.is_object()) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: subscriptions/listen \"notifications\" must be an object");
    return;
  }
  const std::string key = id_key(id);
  if (calls_.count(key) != 0 || listens_.count(key) != 0) {
    reply_error(id, jsonrpc::kInvalidRequest,
                "Invalid Request: a request with id " + id.dump() + " is still in flight");
    return;
  }
  const auto asked = [&filter](const char* kind) {
    const auto flag = filter.find(kind);
    return flag != filter.end() && flag->is_boolean() && flag->get<bool>();
  };
  // What is acknowledged is what will be sent: list changes of tools and resources (when the
  // catalog can change) and of prompts (which never change while the server runs); resource
  // subscriptions are not offered.
  Listen opened{id, asked("toolsListChanged"), asked("resourcesListChanged"), {}};
  Json honoured = Json::object();
  if (opened.tools) honoured["toolsListChanged"] = true;
  if (asked("promptsListChanged")) honoured["promptsListChanged"] = true;
  if (opened.resources) honoured["resourcesListChanged"] = true;
  if (const auto tasks = filter.find("taskIds"); tasks != filter.end()) {
    if (!tasks->is_array() || tasks->size() > kMaxListenedTasks) {
      reply_error(id, jsonrpc::kInvalidParams,
                  "Invalid params: subscriptions/listen \"taskIds\" must be an array of at most " +
                      std::to_string(kMaxListenedTasks) + " task ids");
      return;
    }
    if (!tasks_allowed(context, id, "subscriptions/listen for taskIds")) return;
    // Acknowledged: the ids of tasks this process keeps (another process's tasks are
    // polled with tasks/get, docs/protocol.md "Tasks").
    Json accepted = Json::array();
    for (const Json& task : *tasks) {
      if (!task.is_string() || !options_.tasks->detailed(task.get<std::string>())) continue;
      opened.task_ids.push_back(task.get<std::string>());
      accepted.push_back(task);
    }
    honoured["taskIds"] = std::move(accepted);
    if (!opened.task_ids.empty() && task_watch_ == 0) {
      task_watch_ = options_.tasks->watch(
          [this](const Json& detailed_task) { notify_task_listeners(detailed_task); });
    }
  }
  listens_.emplace(key, opened);
  send(jsonrpc::make_notification(
           "notifications/subscriptions/acknowledged",
           Json{{"_meta", {{envelope_keys::kSubscriptionId, id}}}, {"notifications", honoured}}),
       id);
}

void Session::close_listens() {
  // The server ends each listen with its result, so the client knows it was not a failure.
  auto listens = std::exchange(listens_, {});
  for (auto& [key, listen] : listens) {
    send(jsonrpc::make_result(listen.id,
                              Json{{"resultType", "complete"},
                                   {"_meta", {{envelope_keys::kSubscriptionId, listen.id}}}}),
         listen.id);
  }
}

void Session::ping(const RequestContext& context, const Json& id, const Json& /*params*/) { reply(context, id, Json::object()); }

// Without a catalog the server publishes no resources or prompts (the computer's UI resource
// comes with the desktop); the methods still answer as the spec asks.

void Session::list_resources(const RequestContext& context, const Json& id, const Json& /*params*/) {
  reply_cacheable(context, id,
                  Json{{"resources", options_.catalog ? options_.catalog->resources() : Json::array()}},
                  kChangingListTtlMs);
}

void Session::list_resource_templates(const RequestContext& context, const Json& id, const Json& /*params*/) {
  reply_cacheable(context, id,
                  Json{{"resourceTemplates",
                        options_.catalog ? options_.catalog->resource_templates() : Json::array()}},
                  kFixedListTtlMs);
}

void Session::read_resource(const RequestContext& context, const Json& id, const Json& params) {
  const Json uri = params.value("uri", Json());
  if (!uri.is_string()) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: resources/read needs \"uri\" (a string)");
    return;
  }
  const std::string name = uri.get<std::string>();
  // 2025 sessions keep their revision's code; the 2026 revision uses invalid params, with the
  // URI in data (SEP-2164).
  const auto not_found = [this, context, id, name] {
    if (context.stateless) {
      return reply_error(id, jsonrpc::kInvalidParams, "Resource not found: " + name,
                         Json{{"uri", name}});
    }
    reply_error(id, kResourceNotFound, "Resource not found: " + name);
  };
  if (!options_.catalog) return not_found();
  std::weak_ptr<bool> alive = alive_;
  options_.catalog->read_resource_async(
      name, [this, alive, context, id, name, not_found](std::optional<Expected<Json>> contents) {
        if (alive.expired()) return;
        if (!contents) return not_found();
        if (!contents->ok()) {
          return reply_error(id, jsonrpc::kInternalError, contents->error().message);
        }
        // The App's page is fixed for the server's life; what a computer shows is not.
        const bool fixed = name.rfind("ui://", 0) == 0;
        reply_cacheable(context, id, std::move(*contents).value(),
                        fixed ? kFixedListTtlMs : kChangingListTtlMs);
      });
}

void Session::subscribe_resource(const RequestContext& context, const Json& id, const Json& params) {
  // Nothing published changes while the server runs, so a subscription never fires.
  if (!params.value("uri", Json()).is_string()) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: \"uri\" (a string) is required");
    return;
  }
  reply(context, id, Json::object());
}

void Session::list_prompts(const RequestContext& context, const Json& id, const Json& /*params*/) {
  reply_cacheable(context, id,
                  Json{{"prompts", options_.catalog ? options_.catalog->prompts() : Json::array()}},
                  kFixedListTtlMs);
}

void Session::get_prompt(const RequestContext& context, const Json& id, const Json& params) {
  const Json name = params.value("name", Json());
  if (!name.is_string()) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: prompts/get needs \"name\" (a string)");
    return;
  }
  if (!options_.catalog) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: unknown prompt: " + name.get<std::string>());
    return;
  }
  const Json arguments = params.value("arguments", Json::object());
  Json responses;
  if (context.stateless) {
    responses = params.value("inputResponses", Json());
    if (!responses.is_null() && !responses.is_object()) {
      reply_error(id, jsonrpc::kInvalidParams, "Invalid params: inputResponses must be an object");
      return;
    }
  }
  auto prompt = context.stateless
                    ? options_.catalog->get_prompt_in_round(name.get<std::string>(), arguments,
                                                            responses)
                    : options_.catalog->get_prompt(name.get<std::string>(), arguments);
  if (!prompt) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: " + prompt.error().message);
    return;
  }
  reply(context, id, std::move(prompt).value());
}

void Session::complete(const RequestContext& context, const Json& id, const Json& params) {
  const Json ref = params.value("ref", Json());
  const Json argument = params.value("argument", Json());
  if (!ref.is_object() || !argument.is_object()) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: completion/complete needs \"ref\" and \"argument\" objects");
    return;
  }
  if (const char* field = first_non_string(ref, {"type", "name", "uri"})) {
    reply_error(id, jsonrpc::kInvalidParams,
                std::string("Invalid params: ref.") + field + " must be a string");
    return;
  }
  if (const char* field = first_non_string(argument, {"name", "value"})) {
    reply_error(id, jsonrpc::kInvalidParams,
                std::string("Invalid params: argument.") + field + " must be a string");
    return;
  }
  Json values = options_.catalog ? options_.catalog->complete(ref, argument.value("name", ""),
                                                              argument.value("value", ""))
                                 : Json::array();
  const bool has_more = values.size() > 100;
  if (has_more) values.erase(values.begin() + 100, values.end());
  reply(context, id, Json{{"completion", {{"values", std::move(values)}, {"hasMore", has_more}}}});
}

void Session::list_tools(const RequestContext& context, const Json& id, const Json& params) {
  const Json cursor = params.value("cursor", Json());
  std::vector<Tool*> listed_tools;
  for (Tool* tool : tools_) {
    if (tool_listed(*tool)) listed_tools.push_back(tool);
  }
  const auto page = tool_list_page(cursor, listed_tools.size(), options_.tools_page_size);
  if (!page) {
    reply_error(id, jsonrpc::kInvalidParams,
                cursor.is_string() ? "Invalid params: unknown cursor (cursors come from nextCursor)"
                                   : "Invalid params: the cursor must be a string");
    return;
  }
  Json listed = Json::array();
  for (size_t i = page->begin; i < page->end; ++i) {
    listed.push_back(listed_tools[i]->definition().to_json());
  }
  Json result{{"tools", std::move(listed)}};
  if (page->next_cursor) result["nextCursor"] = *page->next_cursor;
  reply_cacheable(context, id, std::move(result), kChangingListTtlMs);
}

void Session::call_tool(const RequestContext& context, const Json& id, const Json& params) {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    reply_error(id, jsonrpc::kInvalidParams, "Invalid params: tools/call needs \"name\" (a string)");
    return;
  }
  const auto tool = tools_by_name_.find(name->get<std::string>());
  if (tool == tools_by_name_.end() || !tool_listed(*tool->second)) {
    reply_error(id, jsonrpc::kInvalidParams, "Unknown tool: " + name->get<std::string>());
    return;
  }
  Json arguments = params.value("arguments", Json::object());
  if (!arguments.is_object()) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: tools/call \"arguments\" must be an object");
    return;
  }
  if (calls_.count(id_key(id)) != 0 || listens_.count(id_key(id)) != 0) {
    reply_error(id, jsonrpc::kInvalidRequest,
                "Invalid Request: a request with id " + id.dump() + " is still in flight");
    return;
  }
  // Input validation errors are tool errors (SEP-1303), not protocol errors.
  const Json& schema = tool->second->definition().input_schema;
  if (auto violation = find_schema_violation(schema, arguments)) {
    reply(context, id, ToolResult::error_text("Input validation error: " + *violation).to_json());
    return;
  }
  normalize_integers(schema, arguments);
  if (tool->second->definition().task_support == TaskSupport::required &&
      !tasks_allowed(context, id, "tools/call " + name->get<std::string>())) {
    return;
  }

  Json progress_token;
  const auto meta = params.find("_meta");
  if (meta != params.end() && meta->is_object()) {
    const Json token = meta->value("progressToken", Json());
    if (jsonrpc::is_valid_id(token)) progress_token = token;
  }
  Json responses;
  Json state;
  if (context.stateless &&
      !read_input_round(id, name->get<std::string>(), params, arguments, responses, state)) {
    return;
  }
  start_call(context, *tool->second, id, std::move(arguments), std::move(progress_token),
             std::move(responses), std::move(state));
}

bool Session::read_input_round(const Json& id, const std::string& tool, const Json& params,
                               const Json& arguments, Json& responses, Json& state) {
  if (const auto answers = params.find("inputResponses"); answers != params.end()) {
    if (!answers->is_object()) {
      reply_error(id, jsonrpc::kInvalidParams, "Invalid params: inputResponses must be an object");
      return false;
    }
    for (const auto& [key, answer] : answers->items()) {
      if (!answer.is_object()) {
        reply_error(id, jsonrpc::kInvalidParams,
                    "Invalid params: inputResponses[\"" + key.substr(0, 64) +
                        "\"] must be the result object of the request it answers");
        return false;
      }
    }
    responses = *answers;
  }
  const auto sealed = params.find("requestState");
  if (sealed == params.end()) return true;
  const auto opened = sealed->is_string()
                          ? options_.request_state_seal->open(sealed->get<std::string>(),
                                                              "tools/call " + tool, arguments)
                          : std::nullopt;
  if (!opened) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: requestState is not one this server gave for this call (it "
                "was changed, belongs to another call or is older than " +
                    std::to_string(kRequestStateLifetime.count()) +
                    " minutes); call the tool again without it");
    return false;
  }
  state = *opened;
  return true;
}

void Session::start_call(const RequestContext& context, Tool& tool, const Json& id,
                         Json arguments, Json progress_token, Json input_responses,
                         Json request_state) {
  const std::string& name = tool.definition().name;
  ToolCallOwner& owner = *this;
  auto call = std::make_shared<SessionToolCall>(owner, id, name, std::move(arguments),
                                                std::move(progress_token), serial_, context);
  call->set_input_round(std::move(input_responses), std::move(request_state));
  calls_.emplace(id_key(id), call);
  if (options_.on_tool_request) options_.on_tool_request(name, call->arguments());
  try {
    tool.call(call);
  } catch (const std::exception& error) {
    spdlog::error("tool {} failed: {}", name, error.what());
    call->finish(ToolResult::error_text("Error executing tool " + name + ": " + error.what()));
  }
}

void Session::set_log_level(const RequestContext& context, const Json& id, const Json& params) {
  const Json level = params.value("level", Json());
  const auto parsed = level.is_string() ? parse_log_level(level.get<std::string>()) : std::nullopt;
  if (!parsed) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: level must be one of debug, info, notice, warning, error, "
                "critical, alert, emergency");
    return;
  }
  log_threshold_ = *parsed;
  reply(context, id, Json::object());
}

bool Session::offers_tasks(const RequestContext& context) const {
  if (!context.stateless || options_.tasks == nullptr) return false;
  const Json& capabilities = context.envelope.client_capabilities;
  const auto extensions = capabilities.find("extensions");
  return extensions != capabilities.end() && extensions->is_object() &&
         extensions->contains(kTasksExtension);
}

bool Session::tasks_allowed(const RequestContext& context, const Json& id,
                            const std::string& method) {
  if (offers_tasks(context)) return true;
  reply_error(id, kMissingClientCapability,
              "Missing required client capability: " + method + " needs the " + kTasksExtension +
                  " extension" +
                  (options_.tasks == nullptr
                       ? ", which this server does not offer"
                       : "; declare it in the request's _meta " +
                             std::string(envelope_keys::kClientCapabilities) +
                             ".extensions (protocol version " + kStatelessProtocolVersion + ")"),
              Json{{"requiredCapabilities", {{"extensions", {{kTasksExtension, Json::object()}}}}}});
  return false;
}

std::optional<std::string> Session::task_id_of(const Json& id, const std::string& method,
                                               const Json& params) {
  const auto task = params.find("taskId");
  if (task == params.end() || !task->is_string()) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: " + method + " needs \"taskId\" (a string)");
    return std::nullopt;
  }
  return task->get<std::string>();
}

void Session::get_task(const RequestContext& context, const Json& id, const Json& params) {
  if (!tasks_allowed(context, id, "tasks/get")) return;
  const auto task_id = task_id_of(id, "tasks/get", params);
  if (!task_id) return;
  auto detailed = options_.tasks->detailed(*task_id);
  if (!detailed) return reply_unknown_task(id, *task_id);
  reply(context, id, std::move(*detailed));
}

void Session::update_task(const RequestContext& context, const Json& id, const Json& params) {
  if (!tasks_allowed(context, id, "tasks/update")) return;
  const auto task_id = task_id_of(id, "tasks/update", params);
  if (!task_id) return;
  const Json responses = params.value("inputResponses", Json());
  if (!responses.is_object()) {
    reply_error(id, jsonrpc::kInvalidParams,
                "Invalid params: tasks/update needs \"inputResponses\" (an object of answers by "
                "the keys of the task's inputRequests)");
    return;
  }
  if (!options_.tasks->update(*task_id, responses)) return reply_unknown_task(id, *task_id);
  reply(context, id, Json::object());
}

void Session::cancel_task(const RequestContext& context, const Json& id, const Json& params) {
  if (!tasks_allowed(context, id, "tasks/cancel")) return;
  const auto task_id = task_id_of(id, "tasks/cancel", params);
  if (!task_id) return;
  if (!options_.tasks->cancel(*task_id)) return reply_unknown_task(id, *task_id);
  reply(context, id, Json::object());
}

void Session::reply_unknown_task(const Json& id, const std::string& task_id) {
  reply_error(id, jsonrpc::kInvalidParams,
              "Invalid params: no task " + quoted_excerpt(task_id) +
                  " here (task ids come from a tools/call result; a task is kept " +
                  std::to_string(options_.tasks->options().ttl.count() / 1000) +
                  " s after it ended)");
}

void Session::notify_task_listeners(const Json& detailed_task) {
  const std::string task_id = detailed_task.value("taskId", std::string());
  for (const auto& [key, listen] : listens_) {
    if (std::find(listen.task_ids.begin(), listen.task_ids.end(), task_id) == listen.task_ids.end()) {
      continue;
    }
    Json params = detailed_task;
    params["_meta"] = {{envelope_keys::kSubscriptionId, listen.id}};
    send(jsonrpc::make_notification("notifications/tasks", std::move(params)), listen.id);
  }
}

bool Session::take_as_task(SessionToolCall& call, const std::string& status_message) {
  if (!offers_tasks(call.context())) return false;
  const auto tool = tools_by_name_.find(call.tool_name());
  if (tool == tools_by_name_.end() ||
      tool->second->definition().task_support == TaskSupport::forbidden) {
    return false;
  }
  const Json id = call.request_id();
  const auto held = calls_.find(id_key(id));
  if (held == calls_.end()) return false;
  auto created = options_.tasks->adopt(held->second, *tool->second, status_message,
                                       options_.on_tool_result);
  if (!created) return false;
  calls_.erase(held);
  (*created)["resultType"] = "task";
  reply(call.context(), id, std::move(*created));
  return true;
}

void Session::cancel_request(const Json& params) {
  // A notification's params are not checked like a request's: an array names no request (and
  // Json::value() would throw on it).
  if (!params.is_object()) return;
  const Json request_id = params.value("requestId", Json());
  if (!jsonrpc::is_valid_id(request_id)) return;
  if (listens_.erase(id_key(request_id)) != 0) {
    spdlog::debug("client ended its subscription {}", request_id.dump());
    return;  // nothing more is sent for it
  }
  const auto call = calls_.find(id_key(request_id));
  if (call == calls_.end()) {
    // Unknown ids are normal: the request may have finished while the notice was in transit.
    spdlog::debug("ignoring cancellation of request {}", request_id.dump());
    return;
  }
  auto cancelled = std::move(call->second);
  calls_.erase(call);
  spdlog::info("client cancelled request {} ({}): {}", request_id.dump(), cancelled->tool_name(),
               string_member(params, "reason", "no reason given"));
  cancelled->cancel();
}

void Session::cancel_all_calls() {
  close_listens();
  auto calls = std::exchange(calls_, {});
  for (auto& [key, call] : calls) call->cancel();
}

void Session::send(const Json& message, const Json& related_request) {
  if (send_) send_(message, related_request);
}

bool Session::log_enabled(LogLevel level) const { return level >= log_threshold_; }

bool Session::client_supports(const std::string& capability) const {
  return client_capabilities_.contains(capability);
}

void Session::send_client_request(const std::string& method, Json params,
                                  const Json& related_request,
                                  std::function<void(Expected<Json>)> done) {
  const Json id = "server-" + std::to_string(next_client_request_++);
  client_requests_.emplace(id.dump(), std::move(done));
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}},
       related_request);
}

void Session::receive_client_response(const Json& id, const Json& message) {
  const auto waiting = client_requests_.find(id.dump());
  if (waiting == client_requests_.end()) {
    spdlog::debug("ignoring a response from the client to no request of ours (id {})", id.dump());
    return;
  }
  auto done = std::move(waiting->second);
  client_requests_.erase(waiting);
  if (const auto error = message.find("error"); error != message.end()) {
    const std::string text = error->is_object() ? string_member(*error, "message", "no message") : "";
    const int code = error->is_object() ? int_member(*error, "code") : 0;
    done(Failure{code, "the client answered with error " + std::to_string(code) + ": " + text});
    return;
  }
  done(message.value("result", Json::object()));
}

void Session::call_finished(SessionToolCall& call, ToolResult result) {
  const Json id = call.request_id();
  calls_.erase(id_key(id));
  if (Json error = result.error_object(call.tool_name()); !error.is_null()) {
    return reply_error(id, int_member(error, "code"), error.value("message", std::string()),
                       error.value("data", Json()));
  }
  if (result.asks_for_input() && !call.context().stateless) {
    result = ToolResult::error_text("Error executing tool " + call.tool_name() +
                                    ": it asked for input the way only 2026-07-28 requests can");
  }
  Json answer = result.to_json();
  if (result.asks_for_input() && !result.state.is_null()) {
    answer["requestState"] = options_.request_state_seal->seal("tools/call " + call.tool_name(),
                                                               call.arguments(), result.state);
  }
  if (options_.on_tool_result) options_.on_tool_result(call.tool_name(), call.arguments(), answer);
  reply(call.context(), id, std::move(answer));
}

void Session::reply(const RequestContext& context, const Json& id, Json result) {
  if (context.stateless) {
    if (!result.contains("resultType")) result["resultType"] = "complete";
    Json& meta = result["_meta"];
    if (!meta.is_object()) meta = Json::object();
    meta[envelope_keys::kServerInfo] = {{"name", options_.server_name},
                                        {"version", options_.server_version}};
  }
  send(jsonrpc::make_result(id, std::move(result)), id);
}

void Session::reply_cacheable(const RequestContext& context, const Json& id, Json result,
                              int64_t ttl_ms) {
  if (context.stateless) {
    result["ttlMs"] = ttl_ms;
    result["cacheScope"] = "public";  // the same for every caller of this server
  }
  reply(context, id, std::move(result));
}

void Session::reply_error(const Json& id, int code, const std::string& message, Json data) {
  send(jsonrpc::make_error(id, code, message, std::move(data)), id);
}

}  // namespace vc::mcp
