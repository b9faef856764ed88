// accessibility_tree.h — the at-spi-snapshot-v1 walk and element lookup by ref. Runs only
// inside the accessibility worker process (see accessibility_client.h for why).
#pragma once

#include <string>

#include "atspi_calls.h"
#include "protocol.h"

namespace vc::desktop_agent {

// The whole snapshot object; `width`/`height` are the screen's (bounds outside it are left
// out).
json accessibility_snapshot(AtspiBus& bus, int width, int height);

// {"ref", "bounds", "center"} of the element at `ref`.
json element_bounds(AtspiBus& bus, const std::string& ref, int width, int height);

// Focuses, presses (its first action) or sets the text of the element at `request.ref`
// (`operation`: focus, press, set_text with `text`). With `expect_role`/`expect_name` (what the
// snapshot the ref came from showed there) an element that is no longer that one is
// `not_found`, never acted on. → {"ref", "operation", "role", "name"}.
json element_action(AtspiBus& bus, const json& request);

}  // namespace vc::desktop_agent
