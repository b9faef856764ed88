// Newline framing of the stdio transport.
#include "transport/line_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace vc::transport {
namespace {

struct Collector {
  std::vector<std::string> lines;
  int oversized = 0;
  LineSplitter splitter;
  explicit Collector(size_t limit)
      : splitter(limit, [this](std::string_view line) { lines.emplace_back(line); },
                 [this] { ++oversized; }) {}
};

TEST(LineSplitter, SplitsOnNewlinesAcrossChunks) {
  Collector c(100);
  c.splitter.feed("{\"a\"");
  c.splitter.feed(":1}\n{\"b\":2}\n{\"c\"");
  EXPECT_EQ(c.lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}"}));
  c.splitter.feed(":3}\n");
  EXPECT_EQ(c.lines.back(), "{\"c\":3}");
  EXPECT_EQ(c.splitter.buffered_bytes(), 0u);
}

TEST(LineSplitter, StripsCarriageReturnsAndSkipsBlankLines) {
  Collector c(100);
  c.splitter.feed("one\r\n\n\r\n   \ntwo\r");
  c.splitter.feed("\nthree");
  EXPECT_EQ(c.lines, (std::vector<std::string>{"one", "two"}));
  c.splitter.finish();  // an unterminated last line still counts
  EXPECT_EQ(c.lines.back(), "three");
}

TEST(LineSplitter, OversizedLineIsReportedOnceAndSkipped) {
  Collector c(10);
  c.splitter.feed("0123456789");  // exactly at the limit: fine so far
  EXPECT_EQ(c.oversized, 0);
  c.splitter.feed("abc");
  EXPECT_EQ(c.oversized, 1);
  EXPECT_EQ(c.splitter.buffered_bytes(), 0u);  // nothing of it is kept
  c.splitter.feed(std::string(1000, 'x'));
  EXPECT_EQ(c.oversized, 1);
  c.splitter.feed("tail\nok\n");
  EXPECT_EQ(c.lines, (std::vector<std::string>{"ok"}));
}

TEST(LineSplitter, LineAtTheLimitIsDelivered) {
  Collector c(4);
  c.splitter.feed("abcd\nabcde\nxy\n");
  EXPECT_EQ(c.lines, (std::vector<std::string>{"abcd", "xy"}));
  EXPECT_EQ(c.oversized, 1);
}

TEST(LineSplitter, FinishInsideAnOversizedLineDeliversNothing) {
  Collector c(4);
  c.splitter.feed("abcdefgh");
  c.splitter.finish();
  EXPECT_TRUE(c.lines.empty());
  EXPECT_EQ(c.oversized, 1);
}

}  // namespace
}  // namespace vc::transport
