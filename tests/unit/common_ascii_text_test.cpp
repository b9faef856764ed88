// ascii_lower and trim_ascii_whitespace: protocol words fold and trim by ASCII rules, byte by
// byte; nothing outside ASCII changes.
#include <gtest/gtest.h>

#include <string>

#include "common/ascii_text.h"

namespace {

TEST(AsciiTextTest, UpperCaseLettersBecomeLowerCase) {
  EXPECT_EQ(vc::ascii_lower("Content-Type"), "content-type");
  EXPECT_EQ(vc::ascii_lower("YES"), "yes");
  EXPECT_EQ(vc::ascii_lower("AZaz09@[`{"), "azaz09@[`{");
  EXPECT_EQ(vc::ascii_lower(""), "");
}

TEST(AsciiTextTest, BytesOutsideAsciiPassThrough) {
  const std::string text = "\xC3\x84rger \xE2\x82\xAC\xFF";  // "Ärger €" and a stray byte
  EXPECT_EQ(vc::ascii_lower(text), "\xC3\x84rger \xE2\x82\xAC\xFF");
  EXPECT_EQ(vc::ascii_lower(std::string("A\0B", 3)), std::string("a\0b", 3));
}

TEST(AsciiTextTest, TrimmingRemovesAsciiWhitespaceAtBothEndsOnly) {
  EXPECT_EQ(vc::trim_ascii_whitespace(" \t\r\n\f\vtoken value \n"), "token value");
  EXPECT_EQ(vc::trim_ascii_whitespace("token"), "token");
  EXPECT_EQ(vc::trim_ascii_whitespace(" \n\t "), "");
  EXPECT_EQ(vc::trim_ascii_whitespace(""), "");
  // A no-break space (U+00A0) is not ASCII whitespace.
  EXPECT_EQ(vc::trim_ascii_whitespace("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");
}

}  // namespace
