// screenshot.h — the `screen` and `screenshot` actions.
#pragma once

#include "protocol.h"
#include "x_connection.h"

namespace vc::desktop_agent {

json screen_action(XConnection& x, const Request& request);
json screenshot_action(XConnection& x, const Request& request);

// Reads an optional `region` {x, y, width, height} that must lie inside the screen; the whole
// screen when absent.
Rect region_field(XConnection& x, const Request& request);
json rect_json(const Rect& rect);

}  // namespace vc::desktop_agent
