// window_selector.h — which window a window tool means (docs/compatibility.md, "Desktop
// tools"): the original's rules and messages.
//
//   1. a value that reads as an integer (decimal, or hex with 0x, as Python's int(v, 0))
//      matches the window with that id;
//   2. else an exact, case-folded title or WM_CLASS match;
//   3. else a case-folded substring of the title or WM_CLASS.
// No match: "Window '<sel>' was not found."; more than one: "Window selector is ambiguous;
// use one of: <up to 8 ids>."
#pragma once

#include <string>

#include "common/failure.h"
#include "common/json.h"

namespace vc::tools {

// `windows` is list_windows' array; yields the chosen window object.
Expected<Json> select_window(const Json& windows, const std::string& selector);

}  // namespace vc::tools
