// SHA-256 as the file tools report it: the FIPS 180-2 examples, in lower-case hex.
#include <gtest/gtest.h>

#include <string>

#include "common/sha256.h"

namespace {

TEST(Sha256Test, MatchesTheStandardExamples) {
  EXPECT_EQ(vc::sha256_hex(""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(vc::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(vc::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(vc::sha256_hex(std::string(1000000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, HashesEmbeddedNulBytes) {
  EXPECT_NE(vc::sha256_hex(std::string("a\0b", 3)), vc::sha256_hex("a"));
  EXPECT_EQ(vc::sha256_hex(std::string("a\0b", 3)).size(), 64u);
}

}  // namespace
