// read_activity_tool.h — `read_activity`, the App's view of what happens on the computer
// (docs/app.md, "The activity feed"). App-only: hidden from the model.
//
//   {after?: integer ≥ 0 (0), wait_ms?: integer 0..25000 (0)}
//   → {revision, events: [{revision, phase: "request"|"result", operation, arguments,
//      payload}]}, the events newer than `after`; with wait_ms, it waits up to that long for
//      the first one (a long poll over any transport: stdio, HTTP, or a chat client's bridge).
//
// [loop-thread].
#pragma once

#include <cstdint>
#include <memory>

#include "mcp/activity_feed.h"
#include "mcp/tool.h"

namespace vc::tools {

inline constexpr int64_t kMaxActivityWaitMs = 25'000;

// `feed` is borrowed and must outlive the tool and every call it started.
std::unique_ptr<mcp::Tool> make_read_activity_tool(mcp::ActivityFeed& feed);

}  // namespace vc::tools
