// The create document: labels, name-independent fields, resources, hardening, overrides.
#include <gtest/gtest.h>

#include "container_spec.h"

namespace vc::container {
namespace {

ContainerSpec sample() {
  ContainerSpec spec;
  spec.computer_id = "dev-1";
  spec.image = "debian:bookworm-slim";
  spec.temporary = false;
  spec.workspace_directory = "/workspace";
  spec.network = "bridge";
  return spec;
}

TEST(ContainerSpec, CarriesTheSixLabels) {
  auto doc = build_create_document(sample());
  EXPECT_EQ(doc["Labels"], (nlohmann::json{{"kilntainers", "true"},
                                           {"kilntainers.computer-id", "dev-1"},
                                           {"kilntainers.temporary", "false"},
                                           {"kilntainers.image", "debian:bookworm-slim"},
                                           {"mcp-virtual-computer.desktop", "false"},
                                           {"mcp-virtual-computer.workspace", "/workspace"}}));
}

// A computer made from a checkpoint runs its own tag of it and records that tag, while the
// image label keeps what the computer was asked to be made from (a factory reset's image).
TEST(ContainerSpec, MadeFromACheckpointRunsItsBaseTagAndKeepsTheImageLabel) {
  ContainerSpec spec = sample();
  spec.base_image = "localhost/mcp-virtual-computer-base/dev-1:r1";
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["Image"], "localhost/mcp-virtual-computer-base/dev-1:r1");
  EXPECT_EQ(doc["Labels"]["kilntainers.image"], "debian:bookworm-slim");
  EXPECT_EQ(doc["Labels"]["mcp-virtual-computer.base-image"],
            "localhost/mcp-virtual-computer-base/dev-1:r1");
}

TEST(ContainerSpec, PlainImageFields) {
  auto doc = build_create_document(sample());
  EXPECT_EQ(doc["Image"], "debian:bookworm-slim");
  EXPECT_EQ(doc["Cmd"], (nlohmann::json{"tail", "-f", "/dev/null"}));
  EXPECT_EQ(doc["WorkingDir"], "/workspace");
  EXPECT_EQ(doc["Tty"], false);
  EXPECT_EQ(doc["HostConfig"]["Init"], true);
  EXPECT_EQ(doc["HostConfig"]["AutoRemove"], false);
  EXPECT_EQ(doc["HostConfig"]["NetworkMode"], "bridge");
  EXPECT_FALSE(doc["HostConfig"].contains("NanoCpus"));
  EXPECT_FALSE(doc["HostConfig"].contains("Memory"));
  EXPECT_FALSE(doc["HostConfig"].contains("CapDrop"));
}

TEST(ContainerSpec, TemporaryMeansAutoRemove) {
  auto spec = sample();
  spec.temporary = true;
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["HostConfig"]["AutoRemove"], true);
  EXPECT_EQ(doc["Labels"]["kilntainers.temporary"], "true");
}

TEST(ContainerSpec, Resources) {
  auto spec = sample();
  spec.cpus = 1.5;
  spec.memory_bytes = 536870912;
  spec.pids_limit = 256;
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["HostConfig"]["NanoCpus"], 1500000000);
  EXPECT_EQ(doc["HostConfig"]["Memory"], 536870912);
  EXPECT_EQ(doc["HostConfig"]["PidsLimit"], 256);
}

TEST(ContainerSpec, Harden) {
  auto spec = sample();
  spec.harden = true;
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["HostConfig"]["CapDrop"], (nlohmann::json{"ALL"}));
  EXPECT_EQ(doc["HostConfig"]["CapAdd"], nlohmann::json(hardened_capabilities()));
  EXPECT_EQ(doc["HostConfig"]["SecurityOpt"], (nlohmann::json{"no-new-privileges"}));
}

TEST(ContainerSpec, OverridesMergeButIdentityLabelsWin) {
  auto spec = sample();
  spec.overrides = {{"Env", {"LANG=C.UTF-8"}},
                    {"HostConfig", {{"ShmSize", 268435456}, {"Init", nullptr}}},
                    {"Labels", {{"team", "a"}, {"kilntainers.computer-id", "someone-else"}}}};
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["Env"], (nlohmann::json{"LANG=C.UTF-8"}));
  EXPECT_EQ(doc["HostConfig"]["ShmSize"], 268435456);
  EXPECT_FALSE(doc["HostConfig"].contains("Init"));  // null removes (RFC 7386)
  EXPECT_EQ(doc["HostConfig"]["NetworkMode"], "bridge");
  EXPECT_EQ(doc["Labels"]["team"], "a");
  EXPECT_EQ(doc["Labels"]["kilntainers.computer-id"], "dev-1");
}

TEST(ContainerSpec, OverridesCannotDropTheLabels) {
  auto spec = sample();
  spec.overrides = {{"Labels", nullptr}};
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["Labels"]["kilntainers"], "true");
}

}  // namespace
}  // namespace vc::container
