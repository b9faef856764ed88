// task_store.cpp — see task_store.h.
#include "mcp/task_store.h"

#include <array>
#include <cstdio>
#include <ctime>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "common/random_bytes.h"

namespace vc::mcp {
namespace {

constexpr const char* kWorking = "working";
constexpr const char* kInputRequired = "input_required";
constexpr const char* kCompleted = "completed";
constexpr const char* kFailed = "failed";
constexpr const char* kCancelled = "cancelled";

bool ended(const std::string& status) {
  return status == kCompleted || status == kFailed || status == kCancelled;
}

// 122 random bits as a version-4 UUID.
std::string random_task_id() {
  std::array<uint8_t, 16> bytes{};
  fill_random(bytes.data(), bytes.size(), "a task id");
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);
  static const char* kHex = "0123456789abcdef";
  std::string id;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
    id += kHex[bytes[i] >> 4];
    id += kHex[bytes[i] & 0x0f];
  }
  return id;
}

// ISO 8601 in UTC with milliseconds: 2026-12-07T13:31:26.123Z.
std::string iso8601(std::chrono::system_clock::time_point when) {
  const auto since_epoch = std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch());
  const std::time_t seconds = static_cast<std::time_t>(since_epoch.count() / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(since_epoch.count() % 1000));
  return text;
}

}  // namespace

// One task: what tasks/get shows, and the call working for it. It is the owner of that call
// (ToolCallOwner), so the call reports here rather than to the session it started in.
struct TaskStore::Record final : ToolCallOwner {
  TaskStore* store = nullptr;
  std::string id;
  Tool* tool = nullptr;
  std::string tool_name;
  Json arguments;
  Json request_id;
  RequestContext context;
  uint64_t session_serial = 0;
  ResultHook on_result;

  std::string status = kWorking;
  std::string status_message;
  Clock::time_point created_at;
  Clock::time_point updated_at;
  Json result;                         // completed
  Json error;                          // failed
  Json pending = Json::object();       // input_required: the questions not answered yet
  Json answered = Json::object();      // the answers of this round so far
  Json state;                          // what the tool keeps between rounds
  std::shared_ptr<SessionToolCall> call;  // while working

  // ToolCallOwner: a task sends its client nothing while it works.
  void send(const Json& /*message*/, const Json& /*related_request*/) override {}
  bool log_enabled(LogLevel /*level*/) const override { return false; }
  void call_finished(SessionToolCall& /*call*/, ToolResult finished) override {
    store->finished(*this, std::move(finished));
  }
  bool client_supports(const std::string& capability) const override {
    return context.envelope.client_capabilities.contains(capability);
  }
  void send_client_request(const std::string& method, Json /*params*/,
                           const Json& /*related_request*/,
                           std::function<void(Expected<Json>)> done) override {
    if (done) {
      done(Failure{-1, "cannot send " + method + " to the client: a task asks through "
                       "tasks/get and tasks/update"});
    }
  }
  bool take_as_task(SessionToolCall& /*call*/, const std::string& /*message*/) override {
    return true;
  }
  void call_status(SessionToolCall& /*call*/, const std::string& message) override {
    store->set_status_message(*this, message);
  }
};

TaskStore::TaskStore(TaskStoreOptions options) : options_(std::move(options)) {}

TaskStore::~TaskStore() {
  observers_.clear();
  cancel_all();
}

TaskStore::Clock::time_point TaskStore::now() const {
  return options_.now ? options_.now() : Clock::now();
}

std::optional<Json> TaskStore::adopt(const std::shared_ptr<SessionToolCall>& call, Tool& tool,
                                     const std::string& status_message, ResultHook on_result) {
  expire();
  if (!make_room()) {
    spdlog::warn("{} runs as a plain request: {} tasks are working or waiting already",
                 call->tool_name(), records_.size());
    return std::nullopt;
  }
  auto record = std::make_unique<Record>();
  record->store = this;
  record->id = options_.id_prefix.empty() ? random_task_id()
                                           : options_.id_prefix + "-" + random_task_id();
  record->tool = &tool;
  record->tool_name = call->tool_name();
  record->arguments = call->arguments();
  record->request_id = call->request_id();
  record->context = call->context();
  record->session_serial = call->session_serial();
  record->on_result = std::move(on_result);
  record->status_message = status_message;
  record->created_at = record->updated_at = now();
  record->call = call;
  call->transfer_to(*record);
  Json created = task_json(*record);
  spdlog::info("{} goes on as task {}", record->tool_name, record->id);
  records_.emplace(record->id, std::move(record));
  return created;
}

std::optional<Json> TaskStore::detailed(const std::string& task_id) {
  expire();
  const Record* record = find(task_id);
  if (record == nullptr) return std::nullopt;
  return detailed_json(*record);
}

bool TaskStore::update(const std::string& task_id, const Json& input_responses) {
  expire();
  Record* record = find(task_id);
  if (record == nullptr) return false;
  if (record->status != kInputRequired || !input_responses.is_object()) return true;
  bool answered_any = false;
  for (const auto& [key, answer] : input_responses.items()) {
    if (!record->pending.contains(key) || !answer.is_object()) continue;
    record->answered[key] = answer;
    record->pending.erase(key);
    answered_any = true;
  }
  if (!answered_any) return true;
  if (!record->pending.empty()) {
    changed(*record);  // still waiting, for fewer answers
    return true;
  }
  run_round(*record);
  return true;
}

bool TaskStore::cancel(const std::string& task_id) {
  expire();
  Record* record = find(task_id);
  if (record == nullptr) return false;
  if (ended(record->status)) return true;
  record->status = kCancelled;
  record->status_message = "Cancelled by the client.";
  record->pending = Json::object();
  auto call = std::move(record->call);
  changed(*record);
  if (call) call->cancel();
  return true;
}

void TaskStore::cancel_all() {
  std::vector<std::shared_ptr<SessionToolCall>> calls;
  for (auto& [id, record] : records_) {
    if (ended(record->status)) continue;
    record->status = kCancelled;
    record->status_message = "Cancelled: the server shut down.";
    if (record->call) calls.push_back(std::move(record->call));
  }
  for (auto& call : calls) call->cancel();
}

uint64_t TaskStore::watch(Observer observer) {
  const uint64_t watch_id = next_watch_++;
  observers_.emplace(watch_id, std::move(observer));
  return watch_id;
}

void TaskStore::unwatch(uint64_t watch_id) { observers_.erase(watch_id); }

void TaskStore::expire() {
  const auto current = now();
  for (auto it = records_.begin(); it != records_.end();) {
    const Record& record = *it->second;
    const bool idle = ended(record.status) || record.status == kInputRequired;
    if (idle && record.updated_at + options_.ttl <= current) {
      spdlog::debug("task {} of {} expired", record.id, record.tool_name);
      it = records_.erase(it);
    } else {
      ++it;
    }
  }
}

bool TaskStore::make_room() {
  if (records_.size() < options_.max_tasks) return true;
  auto oldest = records_.end();
  for (auto it = records_.begin(); it != records_.end(); ++it) {
    if (!ended(it->second->status)) continue;
    if (oldest == records_.end() || it->second->updated_at < oldest->second->updated_at) oldest = it;
  }
  if (oldest == records_.end()) return false;
  records_.erase(oldest);
  return true;
}

TaskStore::Record* TaskStore::find(const std::string& task_id) {
  const auto found = records_.find(task_id);
  return found == records_.end() ? nullptr : found->second.get();
}

void TaskStore::finished(Record& record, ToolResult outcome) {
  record.call.reset();
  if (ended(record.status)) return;  // cancelled meanwhile
  if (Json error = outcome.error_object(record.tool_name); !error.is_null()) {
    record.status = kFailed;
    record.status_message = error.value("message", std::string("The call failed."));
    record.error = std::move(error);
  } else if (outcome.asks_for_input()) {
    record.status = kInputRequired;
    record.status_message = "Waiting for the client's answers.";
    record.pending = outcome.input_requests.is_object() ? outcome.input_requests : Json::object();
    record.answered = Json::object();
    record.state = std::move(outcome.state);
  } else {
    record.status = kCompleted;
    record.status_message = outcome.is_error ? "The tool reported an error." : "Done.";
    record.result = outcome.to_json();
    if (record.on_result) record.on_result(record.tool_name, record.arguments, record.result);
  }
  changed(record);
}

void TaskStore::set_status_message(Record& record, const std::string& message) {
  if (ended(record.status) || message == record.status_message) return;
  record.status_message = message;
  changed(record);
}

void TaskStore::run_round(Record& record) {
  record.status = kWorking;
  record.status_message = "Working with the client's answers.";
  auto call = std::make_shared<SessionToolCall>(record, record.request_id, record.tool_name,
                                                record.arguments, Json(), record.session_serial,
                                                record.context);
  call->set_input_round(std::exchange(record.answered, Json::object()),
                        std::exchange(record.state, Json()));
  call->mark_task();
  record.call = call;
  changed(record);
  try {
    record.tool->call(call);
  } catch (const std::exception& error) {
    spdlog::error("tool {} failed: {}", record.tool_name, error.what());
    call->finish(ToolResult::error_text("Error executing tool " + record.tool_name + ": " +
                                        error.what()));
  }
}

void TaskStore::changed(Record& record) {
  record.updated_at = now();
  if (observers_.empty()) return;
  const Json detailed = detailed_json(record);
  // A copy: an observer may unwatch (or watch) while it is told.
  const auto observers = observers_;
  for (const auto& [watch_id, observer] : observers) {
    if (observers_.count(watch_id) != 0) observer(detailed);
  }
}

Json TaskStore::task_json(const Record& record) const {
  Json task{{"taskId", record.id},
            {"status", record.status},
            {"createdAt", iso8601(record.created_at)},
            {"lastUpdatedAt", iso8601(record.updated_at)},
            {"ttlMs", static_cast<int64_t>(options_.ttl.count())},
            {"pollIntervalMs", static_cast<int64_t>(options_.poll_interval.count())}};
  if (!record.status_message.empty()) task["statusMessage"] = record.status_message;
  return task;
}

Json TaskStore::detailed_json(const Record& record) const {
  Json task = task_json(record);
  if (record.status == kInputRequired) task["inputRequests"] = record.pending;
  if (record.status == kCompleted) task["result"] = record.result;
  if (record.status == kFailed) task["error"] = record.error;
  return task;
}

}  // namespace vc::mcp
