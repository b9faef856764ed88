// desktop_screen_snapshot.h — the accessibility snapshot in the space of the last screenshot,
// and the screen resources' URIs.
#pragma once

#include "common/json.h"

namespace vc::tools {

inline constexpr const char* kScreenImageUri = "computer://screen/current.png";
inline constexpr const char* kAccessibilityUri = "computer://screen/accessibility.json";

// The agent's at-spi-snapshot-v1 object with every bounds (the elements' and the text's
// "bounds=x,y,w,h") and the screen size multiplied by `scale`, so a position read from the
// snapshot can be clicked in the scaled screenshot's space. Unchanged when scale is 1.
Json scale_snapshot(Json snapshot, double scale);

}  // namespace vc::tools
