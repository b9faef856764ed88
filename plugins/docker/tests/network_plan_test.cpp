// The network toggle's plans for Docker's profile and a profile without a `none` network.
#include <gtest/gtest.h>

#include "docker_profile.h"
#include "network_toggle.h"

namespace vc::container {
namespace {

using Action = NetworkStep::Action;

TEST(NetworkPlan, DockerDisable) {
  const auto& docker = docker::docker_profile();
  EXPECT_EQ(plan_network_change({"bridge"}, false, docker),
            (std::vector<NetworkStep>{{Action::kDisconnect, "bridge"}, {Action::kConnect, "none"}}));
  EXPECT_EQ(plan_network_change({"bridge", "mynet"}, false, docker),
            (std::vector<NetworkStep>{{Action::kDisconnect, "bridge"},
                                      {Action::kDisconnect, "mynet"},
                                      {Action::kConnect, "none"}}));
  EXPECT_TRUE(plan_network_change({"none"}, false, docker).empty());
}

TEST(NetworkPlan, DockerEnable) {
  const auto& docker = docker::docker_profile();
  EXPECT_EQ(plan_network_change({"none"}, true, docker),
            (std::vector<NetworkStep>{{Action::kDisconnect, "none"}, {Action::kConnect, "bridge"}}));
  EXPECT_EQ(plan_network_change({}, true, docker),
            (std::vector<NetworkStep>{{Action::kConnect, "bridge"}}));
  EXPECT_TRUE(plan_network_change({"bridge"}, true, docker).empty());
  EXPECT_TRUE(plan_network_change({"mynet"}, true, docker).empty());
}

TEST(NetworkPlan, EngineWithoutNoneNetwork) {
  EngineProfile profile = docker::docker_profile();
  profile.offline_network.reset();
  profile.online_network = "podman";
  EXPECT_EQ(plan_network_change({"podman"}, false, profile),
            (std::vector<NetworkStep>{{Action::kDisconnect, "podman"}}));
  EXPECT_TRUE(plan_network_change({}, false, profile).empty());
  EXPECT_EQ(plan_network_change({}, true, profile),
            (std::vector<NetworkStep>{{Action::kConnect, "podman"}}));
}

}  // namespace
}  // namespace vc::container
