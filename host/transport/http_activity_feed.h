// http_activity_feed.h — GET /activity: the last tool requests and results
// (docs/compatibility.md, "Activity feed").
//
// A ring of the last 64 events of terminal_execute, read_file, write_file and edit_file, each
// with a process-wide revision that starts at 1 (the feed's own revision is 0 before any).
// Unlike the original, the route is behind the bearer token: events carry commands and file
// contents.
//
// [loop-thread] for every member.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "common/json.h"

namespace vc::transport {

class ActivityFeed {
 public:
  static constexpr size_t kCapacity = 64;

  // Whether events of `tool` are published.
  static bool publishes(const std::string& tool);

  void record_request(const std::string& tool, const Json& arguments);
  // `result` is the CallToolResult; the event's payload is its structuredContent.
  void record_result(const std::string& tool, const Json& arguments, const Json& result);

  // {"revision": R, "events": [events with revision > after]}
  Json since(int64_t after) const;

 private:
  void push(const char* phase, const std::string& tool, const Json& arguments, Json payload);

  int64_t revision_ = 0;
  std::deque<Json> events_;
};

}  // namespace vc::transport
