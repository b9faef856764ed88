// read_activity_tool.cpp — see read_activity_tool.h.
#include "tools/read_activity_tool.h"

#include <algorithm>
#include <utility>

#include "tools/desktop_tool_support.h"
#include "tools/tool_schema.h"

namespace vc::tools {
namespace {

Json activity_output_schema() {
  return Json{{"type", "object"},
              {"properties",
               {{"revision", typed("integer", "The newest event's revision (0 before any).")},
                {"events", typed("array",
                                 "Events newer than `after`, oldest first: {revision, phase "
                                 "(request or result), operation (the tool), arguments, payload "
                                 "(the result's structuredContent, null for a request)}.")}}},
              {"required", Json::array({"revision", "events"})}};
}

int64_t integer_argument(const Json& arguments, const char* name, int64_t low, int64_t high) {
  const auto found = arguments.find(name);
  if (found == arguments.end() || !found->is_number()) return low;
  // Validated as an integer within bounds; a huge value that came through as a double is
  // clamped rather than converted out of range.
  if (found->is_number_float()) {
    const double value = found->get<double>();
    if (!(value >= static_cast<double>(low))) return low;
    if (value >= static_cast<double>(high)) return high;
    return static_cast<int64_t>(value);
  }
  if (found->is_number_unsigned()) {
    return static_cast<int64_t>(std::min<uint64_t>(found->get<uint64_t>(), static_cast<uint64_t>(high)));
  }
  return std::clamp<int64_t>(found->get<int64_t>(), low, high);
}

class ReadActivityTool final : public mcp::Tool {
 public:
  explicit ReadActivityTool(mcp::ActivityFeed& feed)
      : feed_(feed),
        definition_(tool_definition(
            "read_activity", std::nullopt,
            "Read what tools did on the computer, for the in-chat view: the events after "
            "`after`, waiting up to `wait_ms` for the next one.",
            object_schema("read_activity",
                          Json{{"after", integer_property("After",
                                                          "Return events newer than this "
                                                          "revision.",
                                                          0, std::nullopt, 0)},
                               {"wait_ms", integer_property("Wait Ms",
                                                            "Wait this long (at most 25000) for "
                                                            "an event when there is none yet.",
                                                            0, kMaxActivityWaitMs, 0)}},
                          {}),
            activity_output_schema(), read_only_annotations(), app_only_meta())) {}

  const mcp::ToolDefinition& definition() const override { return definition_; }

  void call(std::shared_ptr<mcp::ToolCall> call) override {
    const Json& arguments = call->arguments();
    const int64_t after = integer_argument(arguments, "after", 0, INT64_MAX);
    const auto wait_ms =
        static_cast<uint64_t>(integer_argument(arguments, "wait_ms", 0, kMaxActivityWaitMs));
    const auto id = feed_.wait(after, wait_ms, [call](Json answer) {
      call->finish(mcp::ToolResult::from_payload(answer, false));
    });
    call->on_cancel([&feed = feed_, id] { feed.cancel(id); });
  }

 private:
  mcp::ActivityFeed& feed_;
  mcp::ToolDefinition definition_;
};

}  // namespace

std::unique_ptr<mcp::Tool> make_read_activity_tool(mcp::ActivityFeed& feed) {
  return std::make_unique<ReadActivityTool>(feed);
}

}  // namespace vc::tools
