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

}  // namespace vc::desktop_agent
