// tool_list_pages.cpp — see tool_list_pages.h.
#include "mcp/tool_list_pages.h"

#include <algorithm>
#include <charconv>
#include <string_view>

namespace vc::mcp {
namespace {

constexpr std::string_view kCursorPrefix = "tools-from-";

std::string encode_cursor(size_t begin) { return std::string(kCursorPrefix) + std::to_string(begin); }

std::optional<size_t> decode_cursor(std::string_view cursor) {
  if (!cursor.starts_with(kCursorPrefix)) return std::nullopt;
  cursor.remove_prefix(kCursorPrefix.size());
  size_t begin = 0;
  const auto [end, error] = std::from_chars(cursor.data(), cursor.data() + cursor.size(), begin);
  if (error != std::errc() || end != cursor.data() + cursor.size() || cursor.empty()) {
    return std::nullopt;
  }
  return begin;
}

}  // namespace

std::optional<ToolListPage> tool_list_page(const Json& cursor, size_t tool_count,
                                           size_t page_size) {
  size_t begin = 0;
  if (!cursor.is_null()) {
    if (!cursor.is_string()) return std::nullopt;
    const auto decoded = decode_cursor(cursor.get_ref<const std::string&>());
    // Only cursors we produce are valid: they point inside the list, never at its start.
    if (!decoded || *decoded == 0 || *decoded >= tool_count) return std::nullopt;
    begin = *decoded;
  }
  ToolListPage page;
  page.begin = begin;
  page.end = page_size == 0 ? tool_count : std::min(tool_count, begin + page_size);
  if (page.end < tool_count) page.next_cursor = encode_cursor(page.end);
  return page;
}

}  // namespace vc::mcp
