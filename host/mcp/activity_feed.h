// activity_feed.h — what the computer's watchers see: the last tool requests and results
// (docs/compatibility.md, "Activity feed"; docs/app.md).
//
// A ring of the last 64 events of terminal_execute, read_file, write_file, edit_file,
// list_directory and the two switches, each with a process-wide revision that starts at 1
// (the feed's own revision is 0 before any). One feed per process, whatever the transport:
// GET /activity reads it over HTTP, and the App's `read_activity` tool reads it (waiting for
// the next event) over every transport. Strings in events are cut at 64 KiB so a command
// with a large output does not keep megabytes in the ring.
//
// [loop-thread] for every member.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>

#include <uv.h>

#include "common/json.h"

namespace vc::mcp {

class ActivityFeed {
 public:
  static constexpr size_t kCapacity = 64;
  static constexpr size_t kMaxStringBytes = 64 * 1024;

  // `loop` runs the waiters' deadlines; null makes every wait answer at once.
  explicit ActivityFeed(uv_loop_t* loop = nullptr);
  ~ActivityFeed();  // answers every waiter with what there is
  ActivityFeed(const ActivityFeed&) = delete;
  ActivityFeed& operator=(const ActivityFeed&) = delete;

  // Whether events of `tool` are published.
  static bool publishes(const std::string& tool);

  void record_request(const std::string& tool, const Json& arguments);
  // `result` is the CallToolResult; the event's payload is its structuredContent.
  void record_result(const std::string& tool, const Json& arguments, const Json& result);

  int64_t revision() const { return revision_; }
  // {"revision": R, "events": [events with revision > after]}
  Json since(int64_t after) const;

  using WaitId = uint64_t;
  using WaitDone = std::function<void(Json)>;
  // Answers `done` with since(after) as soon as an event newer than `after` exists — now, if
  // one does — or after `wait_ms` with no events. `done` runs once, never from inside wait().
  // Returns an id for cancel().
  WaitId wait(int64_t after, uint64_t wait_ms, WaitDone done);
  // Forgets a waiter without answering it (its call was cancelled). Unknown ids are ignored.
  void cancel(WaitId id);

 private:
  struct Waiter;
  void push(const char* phase, const std::string& tool, const Json& arguments, Json payload);
  static void on_timer(uv_timer_t* timer);
  void answer(WaitId id);
  void answer_all();

  uv_loop_t* loop_;
  int64_t revision_ = 0;
  std::deque<Json> events_;
  WaitId next_wait_id_ = 1;
  std::map<WaitId, Waiter*> waiters_;
};

}  // namespace vc::mcp
