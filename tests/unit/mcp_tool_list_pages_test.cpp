// tools/list cursor pagination.
#include "mcp/tool_list_pages.h"

#include <gtest/gtest.h>

namespace vc::mcp {
namespace {

TEST(ToolListPages, WalksEveryPageAndOmitsTheLastCursor) {
  Json cursor;
  std::vector<std::pair<size_t, size_t>> pages;
  for (int guard = 0; guard < 10; ++guard) {
    const auto page = tool_list_page(cursor, 7, 3);
    ASSERT_TRUE(page);
    pages.emplace_back(page->begin, page->end);
    if (!page->next_cursor) break;
    cursor = *page->next_cursor;
  }
  EXPECT_EQ(pages, (std::vector<std::pair<size_t, size_t>>{{0, 3}, {3, 6}, {6, 7}}));
}

TEST(ToolListPages, OnePageWhenEverythingFits) {
  for (size_t page_size : {size_t{0}, size_t{5}, size_t{50}}) {
    const auto page = tool_list_page(nullptr, 5, page_size);
    ASSERT_TRUE(page);
    EXPECT_EQ(page->begin, 0u);
    EXPECT_EQ(page->end, 5u);
    EXPECT_FALSE(page->next_cursor);
  }
  const auto empty = tool_list_page(nullptr, 0, 50);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->end, 0u);
}

TEST(ToolListPages, RejectsCursorsWeDidNotIssue) {
  for (const Json& cursor : {Json(""), Json("garbage"), Json(3), Json("tools-from-"),
                             Json("tools-from-0"), Json("tools-from-7"), Json("tools-from-99"),
                             Json("tools-from-2x"), Json("tools-from--1")}) {
    EXPECT_FALSE(tool_list_page(cursor, 7, 3)) << cursor.dump();
  }
  EXPECT_TRUE(tool_list_page(Json("tools-from-3"), 7, 3));
}

}  // namespace
}  // namespace vc::mcp
