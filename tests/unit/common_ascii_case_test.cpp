// ascii_lower: protocol words fold to lower case byte by byte; nothing outside A-Z changes.
#include <gtest/gtest.h>

#include <string>

#include "common/ascii_case.h"

namespace {

TEST(AsciiCaseTest, UpperCaseLettersBecomeLowerCase) {
  EXPECT_EQ(vc::ascii_lower("Content-Type"), "content-type");
  EXPECT_EQ(vc::ascii_lower("YES"), "yes");
  EXPECT_EQ(vc::ascii_lower("AZaz09@[`{"), "azaz09@[`{");
  EXPECT_EQ(vc::ascii_lower(""), "");
}

TEST(AsciiCaseTest, BytesOutsideAsciiPassThrough) {
  const std::string text = "\xC3\x84rger \xE2\x82\xAC\xFF";  // "Ärger €" and a stray byte
  EXPECT_EQ(vc::ascii_lower(text), "\xC3\x84rger \xE2\x82\xAC\xFF");
  EXPECT_EQ(vc::ascii_lower(std::string("A\0B", 3)), std::string("a\0b", 3));
}

}  // namespace
