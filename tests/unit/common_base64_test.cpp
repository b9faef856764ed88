// Base64 as the file tools use it: RFC 4648's test vectors, round trips of every byte value,
// and each way a text fails to be canonical padded base64.
#include <gtest/gtest.h>

#include <string>

#include "common/base64.h"

namespace {

TEST(Base64Test, EncodesTheRfcVectors) {
  EXPECT_EQ(vc::base64_encode(""), "");
  EXPECT_EQ(vc::base64_encode("f"), "Zg==");
  EXPECT_EQ(vc::base64_encode("fo"), "Zm8=");
  EXPECT_EQ(vc::base64_encode("foo"), "Zm9v");
  EXPECT_EQ(vc::base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(vc::base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(vc::base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64Test, DecodesTheRfcVectors) {
  EXPECT_EQ(vc::base64_decode(""), std::string());
  EXPECT_EQ(vc::base64_decode("Zg=="), "f");
  EXPECT_EQ(vc::base64_decode("Zm8="), "fo");
  EXPECT_EQ(vc::base64_decode("Zm9vYmFy"), "foobar");
}

TEST(Base64Test, EveryByteValueAndLengthRoundTrips) {
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  for (size_t length = 0; length <= bytes.size(); ++length) {
    const std::string input = bytes.substr(bytes.size() - length);
    const std::string encoded = vc::base64_encode(input);
    EXPECT_EQ(encoded.find('\n'), std::string::npos);
    EXPECT_EQ(vc::base64_decode(encoded), input) << "length " << length;
  }
}

TEST(Base64Test, ALongInputIsOneLine) {
  const std::string input(100000, '\xff');
  const std::string encoded = vc::base64_encode(input);
  EXPECT_EQ(encoded.size(), (input.size() + 2) / 3 * 4);
  EXPECT_EQ(encoded.find('\n'), std::string::npos);
  EXPECT_EQ(vc::base64_decode(encoded), input);
}

TEST(Base64Test, RefusesTextThatIsNotCanonicalPaddedBase64) {
  for (const char* text : {"Zg", "Zg=", "Zm9", "Z===", "====", "Zg==Zg==", "Zm=v", "Zm9v\n",
                           " Zm9v", "Zm9v ", "Zm 9v", "Zm9*", "Zh==", "Zm9=", "Zm-_"}) {
    EXPECT_FALSE(vc::base64_decode(text).has_value()) << '"' << text << '"';
  }
}

}  // namespace
