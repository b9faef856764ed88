// desktop_element_tools.h — accessibility as tools, not only a dump: find_elements,
// element_action (focus, press, set_text) and wait_for_element.
//
// Element references are child-index paths (atspi:8/0/2), so the same ref can come to name
// another element once the windows change. Each session keeps what its last accessibility
// look showed at each ref (ScreenSpace::remember_elements); element_action passes that along
// and the agent refuses an element that is no longer the one the session saw. One of the
// desktop tools (desktop_tools.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/json.h"
#include "mcp/tool.h"
#include "tools/desktop_call.h"

namespace vc::tools {

// What find_elements and wait_for_element look for; empty fields match everything.
struct ElementQuery {
  std::string role;   // exact, any case ("push button")
  std::string name;   // a part of the name, any case
  std::string state;  // "focused", "focusable" or "enabled"
  size_t limit = 20;
};

// The elements of an at-spi-snapshot-v1 object that match, at most `limit`, in snapshot
// order; `truncated` tells whether more matched. [any-thread]
struct ElementMatches {
  Json elements = Json::array();
  bool truncated = false;
};
ElementMatches match_elements(const Json& snapshot, const ElementQuery& query);

// [loop-thread] Appends the three tools to `tools`.
void add_element_tools(const DesktopToolsContext& context, std::vector<std::unique_ptr<mcp::Tool>>& tools);

}  // namespace vc::tools
