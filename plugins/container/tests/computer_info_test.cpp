// Inspect documents and list rows -> computer info; ownership; network state; timestamps.
#include <gtest/gtest.h>

#include "computer_info.h"
#include "computer_naming.h"

namespace vc::container {
namespace {

nlohmann::json inspect_sample() {
  return nlohmann::json::parse(R"({
    "Id": "3150946a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e",
    "Created": "2025-11-29T09:12:34.567890123Z",
    "Name": "/kilntainer-dev-1",
    "State": {"Status": "running", "Running": true, "Paused": false, "Pid": 12647, "ExitCode": 0},
    "Config": {"Image": "debian:bookworm-slim",
               "Labels": {"kilntainers": "true", "kilntainers.computer-id": "dev-1",
                          "kilntainers.temporary": "false", "kilntainers.image": "debian:bookworm-slim",
                          "mcp-virtual-computer.desktop": "false",
                          "mcp-virtual-computer.workspace": "/workspace"}},
    "HostConfig": {"NetworkMode": "bridge"},
    "NetworkSettings": {"Networks": {"bridge": {"IPAddress": "172.17.0.2"}}}
  })");
}

TEST(ComputerInfo, FromInspect) {
  auto info = computer_info_from_inspect(inspect_sample(), "fallback:latest");
  EXPECT_EQ(info, (nlohmann::json{{"computer_id", "dev-1"},
                                  {"sandbox_id", "3150946a0b1c"},
                                  {"state", "running"},
                                  {"temporary", false},
                                  {"image", "debian:bookworm-slim"},
                                  {"created_at", "2025-11-29T09:12:34Z"},
                                  {"network_access", true},
                                  {"desktop_environment", false},
                                  {"desktop_url", nullptr}}));
}

TEST(ComputerInfo, StoppedOfflineContainer) {
  auto doc = inspect_sample();
  doc["State"] = {{"Status", "exited"}, {"Running", false}, {"ExitCode", 137}};
  doc["NetworkSettings"]["Networks"] = {{"none", nlohmann::json::object()}};
  auto info = computer_info_from_inspect(doc, "x");
  EXPECT_EQ(info["state"], "stopped");
  EXPECT_EQ(info["network_access"], false);
}

TEST(ComputerInfo, EmptyNetworkMapIsOffline) {
  auto doc = inspect_sample();
  doc["NetworkSettings"]["Networks"] = nlohmann::json::object();
  EXPECT_EQ(computer_info_from_inspect(doc, "x")["network_access"], false);
}

TEST(ComputerInfo, FallbackImageAndTemporaryDefault) {
  auto doc = inspect_sample();
  doc["Config"]["Labels"].erase("kilntainers.image");
  doc["Config"]["Labels"].erase("kilntainers.temporary");
  doc["Config"].erase("Image");
  auto info = computer_info_from_inspect(doc, "fallback:latest");
  EXPECT_EQ(info["image"], "fallback:latest");
  EXPECT_EQ(info["temporary"], true);  // the original's default
}

TEST(ComputerInfo, Ownership) {
  auto doc = inspect_sample();
  EXPECT_TRUE(is_owned_by(doc, "dev-1"));
  EXPECT_FALSE(is_owned_by(doc, "dev-2"));
  doc["Config"]["Labels"] = nlohmann::json::object();
  EXPECT_FALSE(is_owned_by(doc, "dev-1"));
  doc["Config"]["Labels"] = nullptr;
  EXPECT_FALSE(is_owned_by(doc, "dev-1"));
}

TEST(ComputerInfo, FromListRow) {
  auto row = nlohmann::json::parse(R"({
    "Id": "aaaaaaaaaaaabbbbbbbb", "Names": ["/kilntainer-x"], "Image": "img:1", "State": "exited",
    "Created": 1764407554,
    "Labels": {"kilntainers": "true", "kilntainers.computer-id": "x", "kilntainers.temporary": "false"},
    "NetworkSettings": {"Networks": {"bridge": {}}}
  })");
  auto info = computer_info_from_list_row(row, "fallback");
  ASSERT_TRUE(info);
  EXPECT_EQ((*info)["computer_id"], "x");
  EXPECT_EQ((*info)["sandbox_id"], "aaaaaaaaaaaa");
  EXPECT_EQ((*info)["state"], "stopped");
  EXPECT_EQ((*info)["image"], "img:1");
  EXPECT_EQ((*info)["created_at"], "2025-11-29T09:12:34Z");
  EXPECT_EQ((*info)["network_access"], true);
  row["Labels"].erase("kilntainers.computer-id");
  EXPECT_FALSE(computer_info_from_list_row(row, "fallback"));
}

TEST(Timestamps, Normalise) {
  EXPECT_EQ(normalise_timestamp("2025-01-31T12:00:00Z"), "2025-01-31T12:00:00Z");
  EXPECT_EQ(normalise_timestamp("2025-01-31T12:00:00.5+00:00"), "2025-01-31T12:00:00Z");
  EXPECT_EQ(normalise_timestamp("2025-01-31T12:00:00.5+02:00"), "2025-01-31T12:00:00.5+02:00");
  EXPECT_FALSE(normalise_timestamp("0001-01-01T00:00:00Z"));
  EXPECT_FALSE(normalise_timestamp("yesterday"));
  EXPECT_EQ(timestamp_from_unix_seconds(0), "1970-01-01T00:00:00Z");
}

TEST(Naming, ComputerIdsAndNames) {
  for (const char* bad : {"", "UPPER", "with space", "-leading", "trailing-", "under_score"}) {
    EXPECT_FALSE(is_valid_computer_id(bad)) << bad;
  }
  EXPECT_FALSE(is_valid_computer_id(std::string(64, 'a')));
  EXPECT_TRUE(is_valid_computer_id(std::string(63, 'a')));
  EXPECT_TRUE(is_valid_computer_id("a"));
  EXPECT_TRUE(is_valid_computer_id("agent-workstation-2"));
  EXPECT_EQ(container_name("dev-1"), "kilntainer-dev-1");
  EXPECT_EQ(short_container_id("0123456789abcdef"), "0123456789ab");
}

}  // namespace
}  // namespace vc::container
