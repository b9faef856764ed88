// Image references split for POST /images/create, and the pull failure sentence.
#include <gtest/gtest.h>

#include "image_ensure.h"
#include "image_reference.h"

namespace vc::container {
namespace {

TEST(ImageReference, SplitsTagsPortsAndDigests) {
  EXPECT_EQ(pull_target("debian:bookworm-slim").from_image, "debian");
  EXPECT_EQ(pull_target("debian:bookworm-slim").tag, "bookworm-slim");
  EXPECT_EQ(pull_target("debian").tag, "latest");
  EXPECT_EQ(pull_target("localhost:5000/team/img").from_image, "localhost:5000/team/img");
  EXPECT_EQ(pull_target("localhost:5000/team/img").tag, "latest");
  EXPECT_EQ(pull_target("localhost:5000/team/img:2").tag, "2");
  EXPECT_EQ(pull_target("img@sha256:abcd").from_image, "img");
  EXPECT_EQ(pull_target("img@sha256:abcd").tag, "sha256:abcd");
}

TEST(ImageReference, PullFailureMessage) {
  auto message = pull_failure_message("foo:1", "manifest unknown");
  EXPECT_EQ(message, "Failed to pull image 'foo:1': manifest unknown. Check that the image name "
                     "is correct and the registry is reachable.");
  auto debian = pull_failure_message("debian:bookworm-slim", "no such host");
  EXPECT_NE(debian.find("scripts/engines/docker-up.sh"), std::string::npos);
}

}  // namespace
}  // namespace vc::container
