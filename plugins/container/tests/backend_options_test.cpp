// Option parsing: defaults, each option's checks and messages.
#include <unistd.h>

#include <gtest/gtest.h>

#include "backend_options.h"

namespace vc::container {
namespace {

std::optional<BackendOptions> parse(nlohmann::json options, std::string& error) {
  return parse_backend_options({{"options", std::move(options)}}, "docker-host",
                               "unix:///var/run/docker.sock", error);
}

TEST(BackendOptions, DefaultsWhenEverythingIsNull) {
  std::string error;
  auto parsed = parse({{"docker-host", nullptr}, {"image", nullptr}, {"cpu", nullptr},
                       {"memory", nullptr}, {"pids-limit", nullptr}, {"harden", false},
                       {"create-overrides", nullptr}, {"engine-timeout", 30}},
                      error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->engine_address, "unix:///var/run/docker.sock");
  EXPECT_EQ(parsed->image, "mcp-virtual-computer-desktop:bookworm");  // as the original
  EXPECT_FALSE(parsed->cpus);
  EXPECT_FALSE(parsed->memory_bytes);
  EXPECT_FALSE(parsed->pids_limit);
  EXPECT_FALSE(parsed->harden);
  EXPECT_TRUE(parsed->create_overrides.is_null());
  EXPECT_EQ(parsed->engine_timeout, std::chrono::seconds(30));
}

TEST(BackendOptions, AcceptsValidValues) {
  std::string error;
  auto parsed = parse({{"docker-host", "tcp://127.0.0.1:2375"}, {"image", "vc-test-busybox:latest"},
                       {"cpu", 1.5}, {"memory", "512m"}, {"pids-limit", 256}, {"harden", true},
                       {"create-overrides", R"({"HostConfig":{"ShmSize":1024}})"},
                       {"engine-timeout", 5}},
                      error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(*parsed->cpus, 1.5);
  EXPECT_EQ(*parsed->memory_bytes, 512 * 1024 * 1024);
  EXPECT_EQ(*parsed->pids_limit, 256);
  EXPECT_TRUE(parsed->harden);
  EXPECT_EQ(parsed->create_overrides["HostConfig"]["ShmSize"], 1024);
  EXPECT_EQ(parsed->engine_timeout, std::chrono::seconds(5));
}

TEST(BackendOptions, RefusesBadAddressNamingTheOption) {
  std::string error;
  EXPECT_FALSE(parse({{"docker-host", "ssh://me@box"}}, error));
  EXPECT_NE(error.find("--docker-host 'ssh://me@box'"), std::string::npos) << error;
}

TEST(BackendOptions, RefusesBadMemoryWithExample) {
  std::string error;
  EXPECT_FALSE(parse({{"memory", "lots"}}, error));
  EXPECT_NE(error.find("--memory must be a size such as 512m"), std::string::npos) << error;
  EXPECT_FALSE(parse({{"memory", "1k"}}, error));
  EXPECT_NE(error.find("at least 6m"), std::string::npos) << error;
}

TEST(BackendOptions, RefusesNonPositiveCpuAndPids) {
  std::string error;
  EXPECT_FALSE(parse({{"cpu", 0}}, error));
  EXPECT_NE(error.find("--cpu"), std::string::npos);
  EXPECT_FALSE(parse({{"pids-limit", 0}}, error));
  EXPECT_NE(error.find("--pids-limit"), std::string::npos);
}

TEST(BackendOptions, RefusesInvalidCreateOverrides) {
  std::string error;
  EXPECT_FALSE(parse({{"create-overrides", "{not json"}}, error));
  EXPECT_NE(error.find("--create-overrides is not valid JSON"), std::string::npos) << error;
  EXPECT_FALSE(parse({{"create-overrides", "[1,2]"}}, error));
  EXPECT_NE(error.find("must be a JSON object"), std::string::npos) << error;
}

TEST(BackendOptions, RefusesImageWithSpaces) {
  std::string error;
  EXPECT_FALSE(parse({{"image", "debian bookworm"}}, error));
  EXPECT_NE(error.find("--image"), std::string::npos);
}

TEST(MemorySize, ParsesUnits) {
  EXPECT_EQ(parse_memory_size("100"), 100);
  EXPECT_EQ(parse_memory_size("100b"), 100);
  EXPECT_EQ(parse_memory_size("2k"), 2048);
  EXPECT_EQ(parse_memory_size("3M"), 3 * 1024 * 1024);
  EXPECT_EQ(parse_memory_size("2gb"), 2LL * 1024 * 1024 * 1024);
  EXPECT_FALSE(parse_memory_size(""));
  EXPECT_FALSE(parse_memory_size("m"));
  EXPECT_FALSE(parse_memory_size("1.5g"));
  EXPECT_FALSE(parse_memory_size("12t"));
  EXPECT_FALSE(parse_memory_size("99999999999999999g"));
}

TEST(BackendOptions, MountsAndTheirOwner) {
  std::string error;
  auto parsed = parse({{"mount", {"/srv/p:/workspace/p", "/srv/d:/mnt/d:ro"}},
                       {"mount-owner", "4242:4243"}},
                      error);
  ASSERT_TRUE(parsed) << error;
  ASSERT_EQ(parsed->mounts.size(), 2u);
  EXPECT_TRUE(parsed->mounts[1].read_only);
  EXPECT_EQ(parsed->mount_owner.uid, 4242u);
  EXPECT_EQ(parsed->mount_owner.gid, 4243u);
  // Without --mount-owner, the user who runs the server.
  parsed = parse({{"mount", nullptr}, {"mount-owner", nullptr}}, error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_TRUE(parsed->mounts.empty());
  EXPECT_EQ(parsed->mount_owner.uid, static_cast<unsigned>(::getuid()));

  EXPECT_FALSE(parse({{"mount", {"/srv/p:workspace"}}}, error));
  EXPECT_EQ(error.rfind("--mount: Mount '/srv/p:workspace': the computer path", 0), 0u) << error;
  EXPECT_FALSE(parse({{"mount-owner", "me"}}, error));
  EXPECT_NE(error.find("--mount-owner must be UID:GID"), std::string::npos) << error;
}

}  // namespace
}  // namespace vc::container
