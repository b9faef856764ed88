// ndjson_splitter_test.cpp — lines out of chunks split anywhere, and the bound on one line.
#include "ndjson_splitter.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

struct Split {
  std::vector<std::string> lines;
  bool within_bound = true;
};

// Feeds `chunks` in order, collecting the lines.
Split split(const std::vector<std::string>& chunks, std::size_t bound = 1024) {
  NdjsonSplitter splitter(bound);
  Split result;
  for (const std::string& chunk : chunks) {
    result.within_bound = splitter.feed(chunk, [&](std::string_view line) {
      result.lines.emplace_back(line);
      return true;
    });
    if (!result.within_bound) break;
  }
  return result;
}

const std::string kStream =
    "{\"type\":\"ADDED\",\"object\":{\"n\":\"caf\xC3\xA9\"}}\n"
    "{\"type\":\"MODIFIED\"}\r\n"
    "\n"
    "{\"type\":\"DELETED\"}\n";
const std::vector<std::string> kLines = {"{\"type\":\"ADDED\",\"object\":{\"n\":\"caf\xC3\xA9\"}}",
                                         "{\"type\":\"MODIFIED\"}", "{\"type\":\"DELETED\"}"};

TEST(NdjsonSplitter, OneChunkGivesEveryLineWithoutItsEnd) {
  const Split result = split({kStream});
  EXPECT_TRUE(result.within_bound);
  EXPECT_EQ(result.lines, kLines);
}

TEST(NdjsonSplitter, EverySplitPointGivesTheSameLines) {
  for (std::size_t cut = 0; cut <= kStream.size(); ++cut) {
    for (std::size_t second_cut = cut; second_cut <= kStream.size(); second_cut += 7) {
      const Split result = split({kStream.substr(0, cut), kStream.substr(cut, second_cut - cut),
                                  kStream.substr(second_cut)});
      EXPECT_EQ(result.lines, kLines) << "cut at " << cut << " and " << second_cut;
    }
  }
}

TEST(NdjsonSplitter, ByteByByteGivesTheSameLines) {
  std::vector<std::string> bytes;
  for (const char byte : kStream) bytes.emplace_back(1, byte);
  EXPECT_EQ(split(bytes).lines, kLines);
}

TEST(NdjsonSplitter, AnUnfinishedLineWaitsForItsEnd) {
  NdjsonSplitter splitter(100);
  int lines = 0;
  const auto count = [&](std::string_view) { return ++lines, true; };
  EXPECT_TRUE(splitter.feed("{\"a\":1}\n{\"b\"", count));
  EXPECT_EQ(lines, 1);
  EXPECT_EQ(splitter.pending_bytes(), 4u);
  EXPECT_TRUE(splitter.feed(":2}", count));
  EXPECT_EQ(lines, 1);
  EXPECT_TRUE(splitter.feed("\n", count));
  EXPECT_EQ(lines, 2);
  EXPECT_EQ(splitter.pending_bytes(), 0u);
}

TEST(NdjsonSplitter, ALineAtTheBoundPassesOneByteMoreIsRefused) {
  const std::string at_bound(16, 'x');
  EXPECT_TRUE(split({at_bound + "\n"}, 16).within_bound);
  EXPECT_EQ(split({at_bound.substr(0, 5), at_bound.substr(5) + "\n"}, 16).lines,
            std::vector<std::string>{at_bound});

  const std::string over = at_bound + "y";
  EXPECT_FALSE(split({over + "\n"}, 16).within_bound);
  // Refused as soon as the unfinished line is over the bound, before its end comes.
  EXPECT_FALSE(split({over}, 16).within_bound);
  EXPECT_FALSE(split({over.substr(0, 9), over.substr(9)}, 16).within_bound);
  // The lines before the long one are still given.
  const Split result = split({"ok\n" + over + "\n"}, 16);
  EXPECT_FALSE(result.within_bound);
  EXPECT_EQ(result.lines, std::vector<std::string>{"ok"});
}

TEST(NdjsonSplitter, ASpentSplitterRefusesMore) {
  NdjsonSplitter splitter(4);
  const auto ignore = [](std::string_view) { return true; };
  EXPECT_FALSE(splitter.feed("too long\n", ignore));
  EXPECT_FALSE(splitter.feed("ok\n", ignore));
}

TEST(NdjsonSplitter, TheConsumerCanStopTheChunk) {
  NdjsonSplitter splitter(100);
  std::vector<std::string> lines;
  EXPECT_TRUE(splitter.feed("a\nb\nc\n", [&](std::string_view line) {
    lines.emplace_back(line);
    return line != "b";
  }));
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b"}));
}

}  // namespace
}  // namespace vc::kubernetes
