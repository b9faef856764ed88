// Tests of repair_utf8: one U+FFFD per maximal subpart of an invalid sequence, as Python's
// bytes.decode("utf-8", "replace").
#include <gtest/gtest.h>

#include "common/utf8_repair.h"

namespace vc::tools {
namespace {

const std::string kReplacement = "\xEF\xBF\xBD";

std::string replacements(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += kReplacement;
  return text;
}

TEST(Utf8RepairTest, ValidTextIsUnchanged) {
  const std::string text =
      "plain ascii, caf\xC3\xA9, \xE2\x82\xAC, \xF0\x9F\x98\x80, \xF4\x8F\xBF\xBF";
  EXPECT_EQ(repair_utf8(text), text);
  EXPECT_EQ(repair_utf8(std::string("nul\0byte", 8)), std::string("nul\0byte", 8));
  EXPECT_EQ(repair_utf8(""), "");
}

TEST(Utf8RepairTest, StrayAndImpossibleBytesAreReplacedOneEach) {
  EXPECT_EQ(repair_utf8("\x80"), replacements(1));
  EXPECT_EQ(repair_utf8("a\xFF"
                        "b"),
            "a" + kReplacement + "b");
  EXPECT_EQ(repair_utf8("\xBF\xBF"), replacements(2));
  EXPECT_EQ(repair_utf8("\xF5\x80\x80\x80"), replacements(4));
}

TEST(Utf8RepairTest, OverlongFormsAreReplacedBytewise) {
  EXPECT_EQ(repair_utf8("\xC0\xAF"), replacements(2));
  EXPECT_EQ(repair_utf8("\xC1\xBF"), replacements(2));
  EXPECT_EQ(repair_utf8("\xE0\x80\xAF"), replacements(3));
  EXPECT_EQ(repair_utf8("\xF0\x80\x80\xAF"), replacements(4));
}

TEST(Utf8RepairTest, SurrogatesAndValuesAboveTheUnicodeRangeAreReplaced) {
  EXPECT_EQ(repair_utf8("\xED\xA0\x80"), replacements(3));
  EXPECT_EQ(repair_utf8("\xED\xBF\xBF"), replacements(3));
  EXPECT_EQ(repair_utf8("\xED\x9F\xBF"), "\xED\x9F\xBF");  // U+D7FF is fine
  EXPECT_EQ(repair_utf8("\xF4\x90\x80\x80"), replacements(4));
}

TEST(Utf8RepairTest, ASequenceCutShortIsOneReplacement) {
  EXPECT_EQ(repair_utf8("a\xC3"), "a" + kReplacement);
  EXPECT_EQ(repair_utf8("\xE2\x82"), replacements(1));
  EXPECT_EQ(repair_utf8("\xF0\x9F\x98"), replacements(1));
  EXPECT_EQ(repair_utf8("\xE2\x82"
                        "x"),
            kReplacement + "x");
  EXPECT_EQ(repair_utf8("\xF0\x9F\x98\xE2\x82\xAC"), kReplacement + "\xE2\x82\xAC");
  EXPECT_EQ(repair_utf8("\xE1\x80\xE2\xF0\x91\x92\xF1\xBF\x41"), replacements(4) + "A");
}

TEST(Utf8PrefixTest, ACutNeverEndsInsideACharacter) {
  const std::string euro = "\xE2\x82\xAC";  // three bytes
  EXPECT_EQ(utf8_prefix("ab" + euro, 2), "ab");
  EXPECT_EQ(utf8_prefix("ab" + euro, 3), "ab");
  EXPECT_EQ(utf8_prefix("ab" + euro, 4), "ab");
  EXPECT_EQ(utf8_prefix("ab" + euro, 5), "ab" + euro);
  EXPECT_EQ(utf8_prefix(euro + euro, 4), euro);
  EXPECT_EQ(utf8_prefix(euro, 0), "");
}

TEST(Utf8PrefixTest, TextThatFitsIsReturnedWhole) {
  EXPECT_EQ(utf8_prefix("hello", 5), "hello");
  EXPECT_EQ(utf8_prefix("hello", 100), "hello");
  EXPECT_EQ(utf8_prefix("", 0), "");
  // Only a cut is made safe: invalid text that fits is repair_utf8's business.
  EXPECT_EQ(utf8_prefix("a\x80", 2), "a\x80");
}

}  // namespace
}  // namespace vc::tools
