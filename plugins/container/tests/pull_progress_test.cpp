// Pull progress folding: monotonic bytes, layer counts, errors.
#include <gtest/gtest.h>

#include "pull_progress.h"

namespace vc::container {
namespace {

TEST(PullProgress, FoldsLayersIntoMonotonicBytes) {
  PullProgress progress("debian:bookworm-slim");
  EXPECT_FALSE(progress.feed(R"({"status":"Pulling from library/debian","id":"bookworm-slim"})"));
  EXPECT_TRUE(progress.feed(R"({"status":"Pulling fs layer","progressDetail":{},"id":"a"})"));
  EXPECT_TRUE(progress.feed(R"({"status":"Pulling fs layer","progressDetail":{},"id":"b"})"));
  EXPECT_TRUE(progress.feed(
      R"({"status":"Downloading","progressDetail":{"current":100,"total":1000},"id":"a"})"));
  EXPECT_EQ(progress.event()["progress"], 100);
  EXPECT_EQ(progress.event()["total"], 1000);
  EXPECT_TRUE(progress.feed(R"({"status":"Download complete","progressDetail":{},"id":"a"})"));
  EXPECT_EQ(progress.event()["progress"], 1000);
  // Extraction restarts "current" at 0: the figure must not go back.
  EXPECT_FALSE(progress.feed(
      R"({"status":"Extracting","progressDetail":{"current":5,"total":1000},"id":"a"})"));
  EXPECT_EQ(progress.event()["progress"], 1000);
  EXPECT_TRUE(progress.feed(R"({"status":"Pull complete","progressDetail":{},"id":"a"})"));
  EXPECT_EQ(progress.event()["message"], "Pulling debian:bookworm-slim: 1 of 2 layers done");
  EXPECT_FALSE(progress.feed(R"({"status":"Digest: sha256:abc"})"));
  EXPECT_FALSE(progress.error());
}

TEST(PullProgress, RemembersTheError) {
  PullProgress progress("nope:latest");
  EXPECT_FALSE(progress.feed(
      R"({"errorDetail":{"message":"pull access denied for nope"},"error":"pull access denied for nope"})"));
  ASSERT_TRUE(progress.error());
  EXPECT_EQ(*progress.error(), "pull access denied for nope");
}

TEST(PullProgress, IgnoresGarbage) {
  PullProgress progress("x");
  EXPECT_FALSE(progress.feed("not json"));
  EXPECT_FALSE(progress.feed("[]"));
  EXPECT_EQ(progress.event()["progress"], 0);
}

}  // namespace
}  // namespace vc::container
