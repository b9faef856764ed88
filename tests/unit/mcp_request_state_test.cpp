// The seal of input-required results' state: what comes back opens only when it is exactly
// what was sealed, for the same call, under the same key.
#include "mcp/request_state.h"

#include <gtest/gtest.h>

namespace vc::mcp {
namespace {

const Json kArguments{{"path", "/workspace/a.txt"}};
const Json kState{{"round", 2}, {"name", "Ada"}};

TEST(RequestStateSeal, ASealedStateOpensForTheSameCall) {
  const RequestStateSeal seal;
  const std::string token = seal.seal("tools/call write_file", kArguments, kState);
  const auto opened = seal.open(token, "tools/call write_file", kArguments);
  ASSERT_TRUE(opened);
  EXPECT_EQ(*opened, kState);
}

TEST(RequestStateSeal, AnythingChangedIsRefused) {
  const RequestStateSeal seal;
  const std::string token = seal.seal("tools/call write_file", kArguments, kState);
  EXPECT_FALSE(seal.open(token + "-TAMPERED", "tools/call write_file", kArguments));
  std::string flipped = token;
  flipped[2] = flipped[2] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(seal.open(flipped, "tools/call write_file", kArguments));
  EXPECT_FALSE(seal.open(token, "tools/call read_file", kArguments)) << "another tool";
  EXPECT_FALSE(seal.open(token, "tools/call write_file", Json{{"path", "/etc/passwd"}}))
      << "other arguments";
  EXPECT_FALSE(seal.open("", "tools/call write_file", kArguments));
  EXPECT_FALSE(seal.open("a.b", "tools/call write_file", kArguments));
  EXPECT_FALSE(seal.open(std::string(kMaxRequestStateBytes + 1, 'a'), "tools/call write_file",
                         kArguments));
}

TEST(RequestStateSeal, ProcessesShareStatesOnlyWithTheSameKey) {
  const RequestStateSeal first("0123456789abcdef-shared");
  const RequestStateSeal second("0123456789abcdef-shared");
  const RequestStateSeal other("fedcba9876543210-other");
  const std::string token = first.seal("tools/call x", kArguments, kState);
  EXPECT_TRUE(second.open(token, "tools/call x", kArguments));
  EXPECT_FALSE(other.open(token, "tools/call x", kArguments));
  EXPECT_FALSE(RequestStateSeal().open(token, "tools/call x", kArguments)) << "a random key";
}

}  // namespace
}  // namespace vc::mcp
