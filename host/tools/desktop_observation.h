// desktop_observation.h — act and observe: the settled screen in an acting call's result.
//
// Every acting desktop tool takes `observe` ("none", "screenshot", "accessibility" or
// "both"): once its actions have run (and, with settling, the screen has caught up), the
// call's result carries what look_at_screen would show, in the session's coordinate space, so
// one call is one step of an agent's loop. The screenshot uses the max_edge of the session's
// last look_at_screen, so the space does not change under the model.
//
// [loop-thread].
#pragma once

#include <memory>
#include <string>

#include "common/json.h"
#include "mcp/tool.h"

namespace vc::tools {

class DesktopCall;

inline constexpr const char* kObserveChoices[] = {"none", "screenshot", "accessibility", "both"};

// {"type": "image", data, mimeType} of an agent screenshot result.
Json screenshot_content(const Json& screenshot);
// The facts of an agent screenshot a result reports: width, height, screen size, scale, region.
Json screenshot_facts(const Json& screenshot);

// Finishes `call` with `payload` (an error result when `is_error`), after taking the
// observation `what` asks for ("none": at once). The content is the payload's text, then
// `content` (images the call's steps returned), then the observation's image and the
// snapshot's text; the structured payload gets "observation": {"image": facts,
// "accessibility": snapshot}.
void finish_with_observation(const std::shared_ptr<DesktopCall>& call, const std::string& what,
                             Json payload, bool is_error, Json content);

}  // namespace vc::tools
