// tool_list_pages.h — cursor pagination for tools/list.
//
// A cursor is opaque to clients; ours names the index of the page's first tool. The tool set
// is fixed for the life of a session, so a cursor stays valid for as long as the session.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "common/json.h"

namespace vc::mcp {

struct ToolListPage {
  size_t begin = 0;                        // first tool index of the page
  size_t end = 0;                          // one past the last
  std::optional<std::string> next_cursor;  // absent on the last page
};

// The page a tools/list `cursor` (null when the client sent none) asks for, or nullopt when
// the cursor is not one this server handed out. `page_size` 0 means one page with everything.
std::optional<ToolListPage> tool_list_page(const Json& cursor, size_t tool_count,
                                           size_t page_size);

}  // namespace vc::mcp
