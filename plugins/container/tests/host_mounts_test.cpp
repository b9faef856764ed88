// Host folder mounts: the entry's form, the host side's checks, the create document's binds and
// labels, what a container made again reads back, and the ownership hand-over command.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "container_spec.h"
#include "host_mounts.h"

namespace vc::container {
namespace {

std::string refusal_of(std::string_view entry) {
  std::string error;
  auto parsed = parse_mount_entry(entry, error);
  EXPECT_FALSE(parsed.has_value()) << entry;
  return error;
}

TEST(HostMounts, EntriesAreParsedAndComputerPathsNormalized) {
  std::string error;
  auto rw = parse_mount_entry("/home/me/project:/workspace/project/", error);
  ASSERT_TRUE(rw) << error;
  EXPECT_EQ(rw->host_path, "/home/me/project");
  EXPECT_EQ(rw->computer_path, "/workspace/project");
  EXPECT_FALSE(rw->read_only);
  auto ro = parse_mount_entry("/srv/docs:/mnt/./docs:ro", error);
  ASSERT_TRUE(ro) << error;
  EXPECT_EQ(ro->computer_path, "/mnt/docs");
  EXPECT_TRUE(ro->read_only);
  EXPECT_FALSE(parse_mount_entry("/srv/docs:/mnt/docs:rw", error)->read_only);
}

TEST(HostMounts, MalformedEntriesAreRefusedNamingTheEntry) {
  EXPECT_EQ(refusal_of("/srv"), "Mount '/srv' is not HOST_PATH:COMPUTER_PATH[:ro|rw] (e.g. "
                                "/home/me/project:/workspace/project:rw).");
  EXPECT_NE(refusal_of("srv:/x").find("the host path 'srv' must be an absolute path"),
            std::string::npos);
  EXPECT_NE(refusal_of("/srv:x").find("'/srv:x': the computer path 'x' must be an absolute"),
            std::string::npos);
  EXPECT_NE(refusal_of("/srv:/a/../b").find("without '..'"), std::string::npos);
  EXPECT_NE(refusal_of("/srv:/").find("the computer path cannot be /"), std::string::npos);
  for (const char* reserved : {"/srv:/proc", "/srv:/sys/x", "/srv:/dev"}) {
    EXPECT_NE(refusal_of(reserved).find("or inside it"), std::string::npos) << reserved;
  }
  EXPECT_NE(refusal_of("/srv:/x:rwx").find("the mode must be ro or rw, not 'rwx'"),
            std::string::npos);
  // /procfoo is not /proc.
  std::string error;
  EXPECT_TRUE(parse_mount_entry("/srv:/procfoo", error)) << error;
}

TEST(HostMounts, ListsTakeStringsOrObjectsAndRefuseDuplicates) {
  std::string error;
  auto list = parse_mount_list(
      nlohmann::json::array({"/a:/x", {{"host_path", "/b"}, {"computer_path", "/y"},
                                       {"read_only", true}}}),
      error);
  ASSERT_TRUE(list) << error;
  ASSERT_EQ(list->size(), 2u);
  EXPECT_TRUE((*list)[1].read_only);
  EXPECT_FALSE(parse_mount_list(nlohmann::json::array({"/a:/x", "/b:/x/"}), error));
  EXPECT_NE(error.find("another mount already uses /x"), std::string::npos) << error;
  EXPECT_FALSE(parse_mount_list(nlohmann::json::array({42}), error));
  EXPECT_FALSE(parse_mount_list("/a:/x", error));
  EXPECT_TRUE(parse_mount_list(nullptr, error)->empty());
}

TEST(HostMounts, TheHostSideIsCheckedAndResolved) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("vc-host-mounts-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "project");
  std::ofstream(root / "file.txt") << "x";
  std::filesystem::create_symlink(root / "project", root / "link");

  std::vector<HostMount> ok = {{(root / "link").string(), "/w", false}};
  EXPECT_EQ(check_host_folders(ok, "/var/lib/docker"), "");
  EXPECT_EQ(ok[0].host_path, std::filesystem::canonical(root / "project").string());

  auto refused = [&](const std::string& host, const std::string& data_root = "/var/lib/docker") {
    std::vector<HostMount> mounts = {{host, "/w", false}};
    return check_host_folders(mounts, data_root);
  };
  EXPECT_NE(refused((root / "missing").string()).find("does not exist"), std::string::npos);
  EXPECT_NE(refused((root / "file.txt").string()).find("is not a folder"), std::string::npos);
  EXPECT_NE(refused("/").find("root folder / cannot be mounted"), std::string::npos);
  EXPECT_NE(refused("/etc").find("is a system folder of the host (/etc)"), std::string::npos);
  EXPECT_NE(refused("/usr/share").find("(/usr)"), std::string::npos);
  EXPECT_NE(refused(root.string(), root.string()).find("container engine's own data"),
            std::string::npos);
  EXPECT_NE(refused((root / "project").string(), root.string()).find("own data"),
            std::string::npos);
  std::filesystem::remove_all(root);
}

TEST(HostMounts, TheCreateDocumentBindsThemAndRecordsThemInLabels) {
  ContainerSpec spec;
  spec.computer_id = "dev-1";
  spec.image = "debian:bookworm-slim";
  spec.network = "bridge";
  spec.mounts = {{"/home/me/p", "/workspace/p", false}, {"/srv/docs", "/mnt/docs", true}};
  spec.mount_owner = MountOwner{1000, 100};
  spec.overrides = {{"HostConfig", {{"Mounts", nlohmann::json::array({{{"Type", "tmpfs"},
                                                                       {"Target", "/t"}}})}}}};
  auto doc = build_create_document(spec);
  const auto& mounts = doc["HostConfig"]["Mounts"];
  ASSERT_EQ(mounts.size(), 3u);
  EXPECT_EQ(mounts[0]["Type"], "tmpfs");
  EXPECT_EQ(mounts[1], (nlohmann::json{{"Type", "bind"}, {"Source", "/home/me/p"},
                                       {"Target", "/workspace/p"}, {"ReadOnly", false}}));
  EXPECT_EQ(mounts[2]["ReadOnly"], true);
  EXPECT_EQ(doc["Labels"]["mcp-virtual-computer.mount-owner"], "1000:100");
  EXPECT_EQ(mounts_from_label(doc["Labels"]["mcp-virtual-computer.mounts"].get<std::string>()),
            spec.mounts);
  // No mounts, no labels.
  spec.mounts.clear();
  spec.overrides = nullptr;
  doc = build_create_document(spec);
  EXPECT_FALSE(doc["Labels"].contains("mcp-virtual-computer.mounts"));
  EXPECT_FALSE(doc["HostConfig"].contains("Mounts"));
  EXPECT_TRUE(mounts_from_label("not json").empty());
}

TEST(HostMounts, OwnershipIsHandedOverInReadWriteMountsOnly) {
  std::vector<HostMount> mounts = {{"/a", "/w/a", false}, {"/b", "/w/b", true}};
  EXPECT_EQ(owner_fixup_argv(mounts, MountOwner{4242, 42}),
            (std::vector<std::string>{"find", "/w/a", "-xdev", "(", "-user", "0", "-o", "-group",
                                      "0", ")", "-exec", "chown", "-h", "4242:42", "{}", "+"}));
  EXPECT_TRUE(owner_fixup_argv(mounts, MountOwner{0, 0}).empty());
  EXPECT_TRUE(owner_fixup_argv({{"/b", "/w/b", true}}, MountOwner{1, 1}).empty());
  EXPECT_EQ(parse_mount_owner("4242:42")->gid, 42u);
  EXPECT_FALSE(parse_mount_owner("me:staff"));
  EXPECT_FALSE(parse_mount_owner("4242"));
}

}  // namespace
}  // namespace vc::container
