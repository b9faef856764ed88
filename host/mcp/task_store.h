// task_store.h — the tasks of the tasks extension (io.modelcontextprotocol/tasks): tool calls
// that answered their 2026-07-28 request with a task and go on working, looked up by id from
// any later request to this server process.
//
// A tool call becomes a task when its tool says its work will take long (ToolCall::
// become_task) and its request declared the extension; the session then hands the call to
// this store, answers the request with the task (CreateTaskResult) and forgets the call. The
// store is one per server process and outlives every session: a 2026 request over HTTP has a
// session of its own that ends with the request, and the task must not.
//
// Decisions (the extension leaves these to the server):
//  - Task ids are 122 random bits in the UUID form, after the process's prefix if it has one:
//    whoever knows the id may read, answer and cancel the task, as the extension intends;
//    there is no tasks/list.
//  - ttlMs is the same for every task (TaskStoreOptions::ttl). A task is kept at least that
//    long after its last change once it has ended or waits for its client's answers; a task
//    still working is never dropped.
//  - At most `max_tasks` are kept: a new task pushes out the oldest ended one; when every kept
//    task is still working or waiting, the call runs as a plain request instead.
//  - tasks/cancel settles the task as `cancelled` at once and cancels the call, as
//    notifications/cancelled would: the command is killed, the operation cancelled. A task
//    that has ended stays as it is.
//  - A task's progress messages become its statusMessage; it sends no progress or log
//    notifications.
//  - A task that asks for input (ToolResult::input_required) waits as `input_required`; the
//    answers arrive with tasks/update, possibly a few at a time, and once every question is
//    answered the tool is called again with them and the state it kept (held here, not
//    sealed: it never leaves the process).
//
// Thread rule: [loop-thread] for every member.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "common/json.h"
#include "mcp/session_tool_call.h"
#include "mcp/tool.h"

namespace vc::mcp {

// The extension's name, in capabilities.extensions of either side.
inline constexpr const char* kTasksExtension = "io.modelcontextprotocol/tasks";

struct TaskStoreOptions {
  std::chrono::milliseconds ttl{3'600'000};
  std::chrono::milliseconds poll_interval{1'000};
  size_t max_tasks = 1'000;
  // Put before every task id as "<prefix>-", so a load balancer can route tasks/* requests
  // to this process by their Mcp-Name header; empty: bare ids.
  std::string id_prefix;
  // The wall clock (createdAt, lastUpdatedAt, expiry); the system clock when empty.
  std::function<std::chrono::system_clock::time_point()> now;
};

class TaskStore {
 public:
  // Told of the result of every task that completed, as a session's on_tool_result is.
  using ResultHook =
      std::function<void(const std::string& tool, const Json& arguments, const Json& result)>;
  // Told of every change of a task: its DetailedTask (what tasks/get answers).
  using Observer = std::function<void(const Json& detailed_task)>;

  explicit TaskStore(TaskStoreOptions options = {});
  // Cancels the calls still working.
  ~TaskStore();
  TaskStore(const TaskStore&) = delete;
  TaskStore& operator=(const TaskStore&) = delete;

  // Takes over `call`, a call of `tool` in flight, as a new working task: the call reports to
  // the store from now on. Returns the task (the fields of a CreateTaskResult, without
  // resultType), or nullopt when the store is full (the call stays with its session).
  std::optional<Json> adopt(const std::shared_ptr<SessionToolCall>& call, Tool& tool,
                            const std::string& status_message, ResultHook on_result);

  // The DetailedTask of `task_id`, or nullopt for an id unknown or expired.
  std::optional<Json> detailed(const std::string& task_id);
  // Answers questions of a task waiting for input; answers to no pending question are
  // ignored. False for an id unknown or expired.
  bool update(const std::string& task_id, const Json& input_responses);
  // Cancels a working or waiting task. False for an id unknown or expired.
  bool cancel(const std::string& task_id);
  // Cancels every task still working or waiting (the server is shutting down).
  void cancel_all();

  // Watchers of task changes (subscriptions/listen's notifications/tasks). An observer may
  // unwatch from inside its call.
  uint64_t watch(Observer observer);
  void unwatch(uint64_t watch_id);

  size_t size() const { return records_.size(); }
  const TaskStoreOptions& options() const { return options_; }

 private:
  struct Record;
  using Clock = std::chrono::system_clock;

  Clock::time_point now() const;
  void expire();
  bool make_room();
  Record* find(const std::string& task_id);
  void finished(Record& record, ToolResult result);
  void set_status_message(Record& record, const std::string& message);
  void run_round(Record& record);
  void changed(Record& record);
  Json task_json(const Record& record) const;
  Json detailed_json(const Record& record) const;

  TaskStoreOptions options_;
  std::map<std::string, std::unique_ptr<Record>> records_;
  std::map<uint64_t, Observer> observers_;
  uint64_t next_watch_ = 1;
};

}  // namespace vc::mcp
