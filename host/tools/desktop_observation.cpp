// desktop_observation.cpp — see desktop_observation.h.
#include "tools/desktop_observation.h"

#include <utility>

#include "tools/desktop_call.h"
#include "tools/desktop_screen_snapshot.h"

namespace vc::tools {

Json screenshot_content(const Json& screenshot) {
  return Json{{"type", "image"},
              {"data", screenshot.value("image_base64", "")},
              {"mimeType", screenshot.value("mime_type", "image/png")}};
}

Json screenshot_facts(const Json& screenshot) {
  Json facts = Json::object();
  for (const char* key : {"width", "height", "screen_width", "screen_height", "scale", "region",
                          "bytes", "quality"}) {
    if (screenshot.contains(key)) facts[key] = screenshot[key];
  }
  return facts;
}

namespace {

struct Observation {
  Json payload;
  bool is_error = false;
  Json observed = Json::object();
  Json extra_content = Json::array();
};

void conclude(const std::shared_ptr<DesktopCall>& call, const std::shared_ptr<Observation>& seen) {
  if (!seen->observed.empty()) seen->payload["observation"] = std::move(seen->observed);
  mcp::ToolResult result = mcp::ToolResult::from_payload(seen->payload, seen->is_error);
  for (Json& item : seen->extra_content) result.content.push_back(std::move(item));
  call->finish(std::move(result));
}

void observe_accessibility(const std::shared_ptr<DesktopCall>& call,
                           const std::shared_ptr<Observation>& seen, bool wanted) {
  if (!wanted) return conclude(call, seen);
  call->attempt(Json{{"action", "accessibility_snapshot"}}, [call, seen](Expected<Json> snapshot) {
    // The action's own result stands when the look fails: the failure is reported beside it.
    if (!snapshot) {
      seen->observed["accessibility_error"] = snapshot.error().message;
      return conclude(call, seen);
    }
    Json shown = scale_snapshot(std::move(snapshot).value(), call->screen_space().scale());
    call->screen_space().remember_elements(shown);
    seen->extra_content.push_back(Json{{"type", "text"}, {"text", shown.value("snapshot", "")}});
    seen->observed["accessibility"] = std::move(shown);
    conclude(call, seen);
  });
}

}  // namespace

void finish_with_observation(const std::shared_ptr<DesktopCall>& call, const std::string& what,
                             Json payload, bool is_error, Json content) {
  auto seen = std::make_shared<Observation>();
  seen->payload = std::move(payload);
  seen->is_error = is_error;
  if (content.is_array()) seen->extra_content = std::move(content);
  if (what.empty() || what == "none") return conclude(call, seen);
  const bool accessibility = what == "accessibility" || what == "both";
  if (what == "accessibility") return observe_accessibility(call, seen, true);
  Json action = call->screen_space().image_budget();
  action["action"] = "screenshot";
  if (auto max_edge = call->screen_space().max_edge()) action["max_edge"] = *max_edge;
  call->attempt(std::move(action), [call, seen, accessibility](Expected<Json> taken) {
    if (!taken) {
      seen->observed["image_error"] = taken.error().message;
      return observe_accessibility(call, seen, accessibility);
    }
    const Json& shot = taken.value();
    ScreenSpace& space = call->screen_space();
    space.remember(shot.value("screen_width", int64_t{0}), shot.value("screen_height", int64_t{0}),
                   shot.value("scale", 1.0));
    seen->observed["image"] = screenshot_facts(shot);
    seen->extra_content.push_back(screenshot_content(shot));
    observe_accessibility(call, seen, accessibility);
  });
}

}  // namespace vc::tools
