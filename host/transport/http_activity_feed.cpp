// http_activity_feed.cpp — see http_activity_feed.h.
#include "transport/http_activity_feed.h"

namespace vc::transport {

bool ActivityFeed::publishes(const std::string& tool) {
  return tool == "terminal_execute" || tool == "read_file" || tool == "write_file" ||
         tool == "edit_file";
}

void ActivityFeed::record_request(const std::string& tool, const Json& arguments) {
  if (publishes(tool)) push("request", tool, arguments, nullptr);
}

void ActivityFeed::record_result(const std::string& tool, const Json& arguments,
                                 const Json& result) {
  if (!publishes(tool)) return;
  Json payload = result.is_object() ? result.value("structuredContent", Json()) : Json();
  push("result", tool, arguments, std::move(payload));
}

void ActivityFeed::push(const char* phase, const std::string& tool, const Json& arguments,
                        Json payload) {
  ++revision_;
  events_.push_back(Json{{"revision", revision_},
                         {"phase", phase},
                         {"operation", tool},
                         {"arguments", arguments},
                         {"payload", std::move(payload)}});
  while (events_.size() > kCapacity) events_.pop_front();
}

Json ActivityFeed::since(int64_t after) const {
  Json events = Json::array();
  for (const auto& event : events_) {
    if (event["revision"].get<int64_t>() > after) events.push_back(event);
  }
  return Json{{"revision", revision_}, {"events", std::move(events)}};
}

}  // namespace vc::transport
