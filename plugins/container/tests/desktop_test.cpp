// The desktop's pure parts: the create document of a desktop computer, the view's URL, the
// secret, computer info with desktop facts, build progress, the image's identity and the build
// context archive.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "build_context.h"
#include "build_progress.h"
#include "computer_info.h"
#include "container_spec.h"
#include "desktop_access.h"
#include "desktop_image.h"

namespace vc::container {
namespace {

ContainerSpec desktop_spec(bool xfce) {
  ContainerSpec spec;
  spec.computer_id = "desk-1";
  spec.image = std::string(kDesktopImageTag);
  spec.workspace_directory = "/workspace";
  spec.network = "bridge";
  spec.desktop_capable = true;
  spec.desktop_environment = xfce;
  spec.desktop_token = std::string(48, 'f');
  return spec;
}

TEST(DesktopSpec, RunsTheImagesSupervisorAndPublishesTheViewOnLoopbackOnly) {
  auto doc = build_create_document(desktop_spec(true));
  EXPECT_FALSE(doc.contains("Cmd")) << "the image's own CMD (the supervisor) must run";
  EXPECT_EQ(doc["ExposedPorts"], (nlohmann::json{{"6080/tcp", nlohmann::json::object()}}));
  EXPECT_EQ(doc["HostConfig"]["PortBindings"],
            (nlohmann::json{{"6080/tcp", {{{"HostIp", "127.0.0.1"}, {"HostPort", ""}}}}}));
  EXPECT_EQ(doc["HostConfig"]["ShmSize"], 256LL * 1024 * 1024);
  EXPECT_EQ(doc["Env"], (nlohmann::json{"DESKTOP_ENVIRONMENT=true",
                                        "VC_DESKTOP_TOKEN=" + std::string(48, 'f')}));
  EXPECT_EQ(doc["Labels"]["mcp-virtual-computer.desktop-capable"], "true");
  EXPECT_EQ(doc["Labels"]["mcp-virtual-computer.desktop"], "true");
  // Never NET_ADMIN: the network switch is applied from outside the computer.
  EXPECT_FALSE(doc["HostConfig"].contains("CapAdd"));
  EXPECT_EQ(doc["HostConfig"]["Init"], true);
}

TEST(DesktopSpec, OverridesCannotRemoveTheDesktopLabel) {
  auto spec = desktop_spec(false);
  spec.overrides = {{"Labels", {{"mcp-virtual-computer.desktop-capable", "false"}}}};
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["Labels"]["mcp-virtual-computer.desktop-capable"], "true");
  EXPECT_EQ(doc["Env"][0], "DESKTOP_ENVIRONMENT=false");
}

TEST(DesktopSpec, AHeadlessSpecHasNoneOfIt) {
  auto spec = desktop_spec(false);
  spec.desktop_capable = false;
  spec.image = "debian:bookworm-slim";
  auto doc = build_create_document(spec);
  EXPECT_EQ(doc["Cmd"], (nlohmann::json{"tail", "-f", "/dev/null"}));
  EXPECT_FALSE(doc.contains("ExposedPorts"));
  EXPECT_FALSE(doc["HostConfig"].contains("PortBindings"));
  EXPECT_FALSE(doc["Labels"].contains("mcp-virtual-computer.desktop-capable"));
}

nlohmann::json desktop_inspect(const char* host_port, bool running = true) {
  return {
      {"Id", "0123456789abcdef0123"},
      {"Created", "2026-01-02T03:04:05.123Z"},
      {"State", {{"Status", running ? "running" : "exited"}, {"Running", running}}},
      {"Config",
       {{"Image", kDesktopImageTag},
        {"Env", {"PATH=/usr/bin", "DESKTOP_ENVIRONMENT=true", "VC_DESKTOP_TOKEN=abc123"}},
        {"Labels",
         {{"kilntainers", "true"},
          {"kilntainers.computer-id", "desk-1"},
          {"kilntainers.temporary", "false"},
          {"kilntainers.image", kDesktopImageTag},
          {"mcp-virtual-computer.desktop", "true"},
          {"mcp-virtual-computer.desktop-capable", "true"}}}}},
      {"NetworkSettings",
       {{"Networks", {{"bridge", nlohmann::json::object()}}},
        {"Ports", {{"6080/tcp", host_port ? nlohmann::json::array(
                                                {{{"HostIp", "127.0.0.1"}, {"HostPort", host_port}}})
                                          : nlohmann::json()}}}}},
  };
}

TEST(DesktopAccess, TheUrlCarriesThePublishedPortAndTheSecretInItsFragment) {
  EXPECT_EQ(desktop_view_url(desktop_inspect("32771")),
            "http://127.0.0.1:32771/vnc.html#autoconnect=1&resize=scale&reconnect=1&path="
            "websockify%3Ftoken%3Dabc123");
  EXPECT_EQ(published_desktop_port(desktop_inspect("32771")), 32771);
  EXPECT_EQ(desktop_token_of(desktop_inspect("1")), "abc123");
}

TEST(DesktopAccess, NoUrlWithoutAPortOrASecret) {
  EXPECT_EQ(desktop_view_url(desktop_inspect(nullptr)), std::nullopt);
  for (const char* bad : {"", "0", "65536", "12ab", "-1"}) {
    EXPECT_EQ(published_desktop_port(desktop_inspect(bad)), std::nullopt) << bad;
  }
  auto no_secret = desktop_inspect("32771");
  no_secret["Config"]["Env"] = {"VC_DESKTOP_TOKEN="};
  EXPECT_EQ(desktop_view_url(no_secret), std::nullopt);
  EXPECT_EQ(desktop_view_url(nlohmann::json::array()), std::nullopt);
}

TEST(DesktopAccess, SecretsAreLongHexAndDifferEachTime) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string token = generate_desktop_token();
    EXPECT_EQ(token.size(), 48u);
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
    seen.insert(token);
  }
  EXPECT_EQ(seen.size(), 100u);
}

TEST(DesktopInfo, LiveFactsDecideTheDesktopAndTheNetwork) {
  auto on = computer_info_from_inspect(desktop_inspect("32771"), "x", DesktopFacts{true, false});
  EXPECT_EQ(on["desktop_environment"], true);
  EXPECT_EQ(on["network_access"], true);
  EXPECT_TRUE(on["desktop_url"].is_string());
  auto off = computer_info_from_inspect(desktop_inspect("32771"), "x", DesktopFacts{false, true});
  EXPECT_EQ(off["desktop_environment"], false);
  EXPECT_EQ(off["network_access"], false) << "the firewall record, not the network attachment";
  EXPECT_TRUE(off["desktop_url"].is_null());
  // Unknown live state: the mode it was created with; stopped: no desktop.
  auto unknown = computer_info_from_inspect(desktop_inspect("32771"), "x");
  EXPECT_EQ(unknown["desktop_environment"], true);
  auto stopped = computer_info_from_inspect(desktop_inspect(nullptr, false), "x");
  EXPECT_EQ(stopped["desktop_environment"], false);
  EXPECT_TRUE(stopped["desktop_url"].is_null());
}

TEST(BuildProgress, CountsDockerAndPodmanStepsAndKeepsTheError) {
  BuildProgress progress("img");
  EXPECT_EQ(progress.event(), (nlohmann::json{{"progress", 0},
                                              {"message", "Building the desktop image img"}}));
  EXPECT_TRUE(progress.feed(R"({"stream":"Step 1/3 : FROM debian:bookworm-slim\n"})"));
  EXPECT_FALSE(progress.feed(R"({"stream":" ---> a88edb7628fe\n"})"));
  EXPECT_EQ(progress.event()["progress"], 0);
  EXPECT_EQ(progress.event()["total"], 3);
  EXPECT_TRUE(progress.feed(R"({"stream":"STEP 2/3: RUN apt-get update"})"));
  EXPECT_EQ(progress.event()["message"],
            "Building the desktop image img: step 2/3 (RUN apt-get update)");
  EXPECT_FALSE(progress.feed(R"({"stream":"Step 1/3 : again"})")) << "progress never goes back";
  EXPECT_FALSE(progress.feed("not json"));
  EXPECT_FALSE(progress.feed(R"({"stream":"Step 9/3 : impossible"})"));
  EXPECT_FALSE(progress.feed(R"({"error":"The command '/bin/sh -c apt-get' returned 100\n"})"));
  EXPECT_EQ(progress.error(), "The command '/bin/sh -c apt-get' returned 100");
  EXPECT_NE(progress.tail().find("---> a88edb7628fe"), std::string::npos);
}

TEST(DesktopImage, TheTagWithOrWithoutARegistryPrefix) {
  EXPECT_TRUE(is_desktop_image("mcp-virtual-computer-desktop:bookworm"));
  EXPECT_TRUE(is_desktop_image("localhost/mcp-virtual-computer-desktop:bookworm"));
  EXPECT_FALSE(is_desktop_image("mcp-virtual-computer-desktop:latest"));
  EXPECT_FALSE(is_desktop_image("debian:bookworm-slim"));
  EXPECT_EQ(desktop_image_version().substr(0, 7), "sha256-");
  EXPECT_EQ(desktop_image_version().size(), 23u);
}

TEST(BuildContext, ArchivesTheFolderAndRefusesSymlinks) {
  namespace fs = std::filesystem;
  fs::path folder = fs::temp_directory_path() / ("vc-context-" + std::to_string(::getpid()));
  fs::create_directories(folder / "sub");
  std::ofstream(folder / "Dockerfile") << "FROM scratch\n";
  std::ofstream(folder / "sub" / "script") << "#!/bin/sh\n";
  fs::permissions(folder / "sub" / "script", fs::perms::owner_all);
  auto tar = tar_build_context(folder.string());
  ASSERT_TRUE(tar.ok()) << tar.error().message;
  EXPECT_EQ(tar.value(), tar_build_context(folder.string()).value()) << "not reproducible";

  archive* reader = archive_read_new();
  archive_read_support_format_tar(reader);
  ASSERT_EQ(archive_read_open_memory(reader, tar.value().data(), tar.value().size()), ARCHIVE_OK);
  std::vector<std::string> names;
  archive_entry* entry = nullptr;
  while (archive_read_next_header(reader, &entry) == ARCHIVE_OK) {
    names.push_back(archive_entry_pathname(entry));
    if (names.back() == "sub/script") {
      EXPECT_EQ(archive_entry_perm(entry), 0700);
    }
  }
  archive_read_free(reader);
  EXPECT_EQ(names, (std::vector<std::string>{"Dockerfile", "sub/", "sub/script"}));

  fs::create_symlink("/etc/passwd", folder / "escape");
  auto refused = tar_build_context(folder.string());
  EXPECT_FALSE(refused.ok());
  if (!refused.ok()) {
    EXPECT_NE(refused.error().message.find("escape"), std::string::npos);
  }
  fs::remove_all(folder);
}

}  // namespace
}  // namespace vc::container
