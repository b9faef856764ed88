// computer_create's "mounts" (--lifecycle-tools): only folders inside --mount-root, resolved.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "tools/mount_request.h"

namespace vc::tools {
namespace {

namespace fs = std::filesystem;

class MountRequestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = fs::temp_directory_path() / ("vc-mount-request-" + std::to_string(::getpid()));
    fs::create_directories(base_ / "root" / "project");
    fs::create_directories(base_ / "outside");
    fs::create_symlink(base_ / "outside", base_ / "root" / "escape");
    root_ = fs::canonical(base_ / "root").string();
  }
  void TearDown() override { fs::remove_all(base_); }

  std::string refusal(const Json& mounts, const std::string& root) {
    auto checked = mounts_under_root(mounts, root);
    EXPECT_FALSE(checked.ok()) << mounts.dump();
    return checked.ok() ? std::string() : checked.error().message;
  }

  fs::path base_;
  std::string root_;
};

TEST_F(MountRequestTest, FoldersInsideTheRootAreAcceptedResolved) {
  auto checked = mounts_under_root(
      Json::array({Json{{"host_path", root_ + "/./project"}, {"computer_path", "/workspace/p"}},
                   Json{{"host_path", root_}, {"computer_path", "/mnt/all"}, {"read_only", true}}}),
      root_);
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  EXPECT_EQ(checked.value()[0]["host_path"], root_ + "/project");
  EXPECT_EQ(checked.value()[0]["read_only"], false);
  EXPECT_EQ(checked.value()[1]["read_only"], true);
  EXPECT_TRUE(mounts_under_root(Json(), "").value().empty());
  EXPECT_TRUE(mounts_under_root(Json::array(), "").value().empty());
}

TEST_F(MountRequestTest, AnythingOutsideTheRootIsRefusedWithASentence) {
  const Json project = Json{{"host_path", root_ + "/project"}, {"computer_path", "/w"}};
  EXPECT_NE(refusal(Json::array({project}), "").find("started without --mount-root"),
            std::string::npos);
  for (const std::string& outside : {std::string("/"), std::string("/root/.ssh"),
                                    root_ + "/../outside", root_ + "/escape"}) {
    const std::string why =
        refusal(Json::array({Json{{"host_path", outside}, {"computer_path", "/w"}}}), root_);
    const bool refused_as_outside = why.find("only folders inside " + root_) != std::string::npos;
    const bool refused_as_missing = why.find("does not exist") != std::string::npos;
    EXPECT_TRUE(refused_as_outside || refused_as_missing) << outside << ": " << why;
    EXPECT_NE(why.find("Mount of " + outside), std::string::npos) << why;
  }
  EXPECT_NE(refusal(Json::array({Json{{"host_path", root_ + "/nope"}, {"computer_path", "/w"}}}),
                    root_)
                .find("does not exist"),
            std::string::npos);
  EXPECT_NE(refusal(Json::array({Json{{"host_path", "project"}, {"computer_path", "/w"}}}), root_)
                .find("must be absolute"),
            std::string::npos);
  EXPECT_NE(refusal(Json::array({"/a:/b"}), root_).find("needs a string host_path"),
            std::string::npos);
  EXPECT_NE(refusal(Json("x"), root_).find("must be an array"), std::string::npos);
}

}  // namespace
}  // namespace vc::tools
