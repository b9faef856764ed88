// computer_objects_test.cpp — the Pod, claim and network policy of a computer, field by field.
#include "computer_objects.h"

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

ComputerSettings plain_settings() {
  ComputerSettings settings;
  settings.computer_id = "box-1";
  settings.image = "debian:bookworm-slim";
  settings.guard_image = "desk:1";
  return settings;
}

ComputerSettings desktop_settings() {
  ComputerSettings settings = plain_settings();
  settings.image = "desk:1";
  settings.desktop_capable = true;
  settings.desktop_environment = true;
  settings.desktop_token = "s3cret";
  return settings;
}

const nlohmann::json& container_named(const nlohmann::json& pod, const std::string& name) {
  for (const auto& container : pod["spec"]["containers"]) {
    if (container["name"] == name) return container;
  }
  static const nlohmann::json none;
  ADD_FAILURE() << "no container " << name << " in " << pod.dump();
  return none;
}

std::vector<std::string> mount_paths(const nlohmann::json& container) {
  std::vector<std::string> paths;
  for (const auto& mount : container["volumeMounts"]) paths.push_back(mount["mountPath"]);
  return paths;
}

TEST(ComputerObjects, NamesAndSelectors) {
  EXPECT_EQ(computer_object_name("box-1"), "kilntainer-box-1");
  EXPECT_EQ(network_off_policy_name("box-1"), "kilntainer-box-1.network-off");
  EXPECT_EQ(computer_label_selector("box-1"), "kilntainers.computer-id=box-1");
  EXPECT_EQ(all_computers_label_selector(), "kilntainers=true");
}

TEST(ComputerObjects, PlainPodCarriesIdentityAndIsolation) {
  auto settings = plain_settings();
  settings.temporary = true;
  const auto pod = build_computer_pod(settings);
  EXPECT_EQ(pod["metadata"]["name"], "kilntainer-box-1");
  const auto& labels = pod["metadata"]["labels"];
  EXPECT_EQ(labels["kilntainers"], "true");
  EXPECT_EQ(labels["kilntainers.computer-id"], "box-1");
  EXPECT_EQ(labels["kilntainers.temporary"], "true");
  EXPECT_EQ(labels["mcp-virtual-computer.desktop"], "false");
  EXPECT_FALSE(labels.contains("mcp-virtual-computer.desktop-capable"));
  EXPECT_EQ(pod["metadata"]["annotations"]["kilntainers.image"], "debian:bookworm-slim");
  EXPECT_EQ(pod["metadata"]["annotations"]["mcp-virtual-computer.workspace"], "/workspace");
  const auto& spec = pod["spec"];
  EXPECT_EQ(spec["automountServiceAccountToken"], false);
  EXPECT_EQ(spec["enableServiceLinks"], false);
  EXPECT_EQ(spec["shareProcessNamespace"], true);
  EXPECT_EQ(spec["volumes"][0]["persistentVolumeClaim"]["claimName"], "kilntainer-box-1");

  const auto& computer = container_named(pod, "computer");
  EXPECT_EQ(computer["command"], nlohmann::json({"tail", "-f", "/dev/null"}));
  EXPECT_EQ(computer["workingDir"], "/workspace");
  EXPECT_EQ(mount_paths(computer), (std::vector<std::string>{"/workspace", "/root"}));
  EXPECT_EQ(computer["securityContext"]["capabilities"]["drop"], nlohmann::json({"NET_ADMIN"}));
  EXPECT_FALSE(computer.contains("resources"));
  EXPECT_FALSE(computer.contains("env"));

  const auto& guard = container_named(pod, "network-guard");
  EXPECT_EQ(guard["image"], "desk:1");
  EXPECT_EQ(guard["securityContext"]["capabilities"]["add"],
            nlohmann::json({"NET_ADMIN", "NET_RAW"}));
  EXPECT_EQ(guard["securityContext"]["capabilities"]["drop"], nlohmann::json({"ALL"}));
}

TEST(ComputerObjects, SeedContainerCopiesTheImageFoldersOnce) {
  auto settings = plain_settings();
  settings.workspace_directory = "/work space/it's";
  const auto pod = build_computer_pod(settings);
  const auto& seed = pod["spec"]["initContainers"][0];
  EXPECT_EQ(seed["image"], "debian:bookworm-slim");
  const std::string script = seed["command"][2];
  EXPECT_NE(script.find(".seeded\" ] && exit 0"), std::string::npos) << script;
  EXPECT_NE(script.find("seed '/work space/it'\\''s' workspace"), std::string::npos) << script;
  EXPECT_NE(script.find("seed /root home-root"), std::string::npos);
  EXPECT_EQ(script.find("home-computer"), std::string::npos);
}

TEST(ComputerObjects, DesktopPodRunsTheImageCommandWithItsSecret) {
  const auto pod = build_computer_pod(desktop_settings());
  EXPECT_EQ(pod["metadata"]["labels"]["mcp-virtual-computer.desktop-capable"], "true");
  EXPECT_EQ(pod["metadata"]["labels"]["mcp-virtual-computer.desktop"], "true");
  const auto& computer = container_named(pod, "computer");
  EXPECT_FALSE(computer.contains("command"));
  EXPECT_EQ(computer["env"][0]["name"], "DESKTOP_ENVIRONMENT");
  EXPECT_EQ(computer["env"][0]["value"], "true");
  EXPECT_EQ(computer["env"][1]["name"], "VC_DESKTOP_TOKEN");
  EXPECT_EQ(computer["env"][1]["value"], "s3cret");
  EXPECT_EQ(computer["ports"][0]["containerPort"], 6080);
  EXPECT_EQ(mount_paths(computer),
            (std::vector<std::string>{"/workspace", "/root", "/home/computer", "/dev/shm"}));
  const std::string script = pod["spec"]["initContainers"][0]["command"][2];
  EXPECT_NE(script.find("seed /home/computer home-computer"), std::string::npos);
}

TEST(ComputerObjects, LimitsBecomeResourceLimits) {
  auto settings = plain_settings();
  settings.cpu_millis = 1500;
  settings.memory_bytes = 512LL * 1024 * 1024;
  const auto pod = build_computer_pod(settings);
  const auto& limits = container_named(pod, "computer")["resources"]["limits"];
  EXPECT_EQ(limits["cpu"], "1500m");
  EXPECT_EQ(limits["memory"], "536870912");
}

TEST(ComputerObjects, OverridesMergeButIdentityAndClaimWin) {
  auto settings = plain_settings();
  settings.overrides = {
      {"metadata", {{"name", "other"}, {"labels", {{"team", "a"}, {"kilntainers.computer-id", "x"}}}}},
      {"spec", {{"nodeSelector", {{"pool", "agents"}}}, {"volumes", nullptr}}}};
  const auto pod = build_computer_pod(settings);
  EXPECT_EQ(pod["metadata"]["name"], "kilntainer-box-1");
  EXPECT_EQ(pod["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(pod["metadata"]["labels"]["kilntainers.computer-id"], "box-1");
  EXPECT_EQ(pod["spec"]["nodeSelector"]["pool"], "agents");
  ASSERT_EQ(pod["spec"]["volumes"].size(), 1u);
  EXPECT_EQ(pod["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"], "kilntainer-box-1");
}

TEST(ComputerObjects, ClaimAndPolicy) {
  auto claim = build_computer_claim(plain_settings(), "", "10Gi");
  EXPECT_EQ(claim["kind"], "PersistentVolumeClaim");
  EXPECT_EQ(claim["metadata"]["name"], "kilntainer-box-1");
  EXPECT_EQ(claim["metadata"]["labels"]["kilntainers.computer-id"], "box-1");
  EXPECT_EQ(claim["spec"]["resources"]["requests"]["storage"], "10Gi");
  EXPECT_FALSE(claim["spec"].contains("storageClassName"));
  claim = build_computer_claim(plain_settings(), "fast", "1Gi");
  EXPECT_EQ(claim["spec"]["storageClassName"], "fast");

  const auto policy = build_network_off_policy("box-1");
  EXPECT_EQ(policy["kind"], "NetworkPolicy");
  EXPECT_EQ(policy["metadata"]["name"], "kilntainer-box-1.network-off");
  EXPECT_EQ(policy["spec"]["podSelector"]["matchLabels"]["kilntainers.computer-id"], "box-1");
  EXPECT_EQ(policy["spec"]["policyTypes"], nlohmann::json({"Egress"}));
  EXPECT_TRUE(policy["spec"]["egress"].is_array());
  EXPECT_TRUE(policy["spec"]["egress"].empty());
}

}  // namespace
}  // namespace vc::kubernetes
