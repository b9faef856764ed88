// mounts_test.cpp — host folders mounted into a computer (--mount, docs/mounts.md) against the
// real engines, as an agent uses them: the file tools and commands in a read-write mount land
// in the host folder owned by --mount-owner, a read-only mount refuses writes with the
// system's reason, restart and factory reset keep the mounts and the host files, bad entries
// are refused before anything is made, and a host folder deleted under a running computer
// gives an error on use while the computer goes on working. Checked on the host with
// std::filesystem and stat(), and at the engine with inspect.
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "command_runner.h"
#include "engine_test.h"

namespace vc::integration {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kOwnerUid = 4242;
constexpr unsigned kOwnerGid = 4242;

std::string read_host_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream content;
  content << in.rdbuf();
  return content.str();
}

// A look_at_screen image's base64 data, decoded.
std::string decode_screenshot(const std::string& text) {
  static const std::string kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char c : text) {
    const auto value = kAlphabet.find(c);
    if (value == std::string::npos) continue;  // '=' padding, line breaks
    buffer = (buffer << 6) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xFFu));
    }
  }
  return out;
}

class MountsTest : public EngineTest {
 protected:
  void TearDown() override {
    if (host_) close_host(host_);
    EngineTest::TearDown();
  }

  // A host folder of this test, readable by anyone (the computer's root reaches it either way).
  fs::path host_folder(const std::string& name) {
    fs::path path = folders_.path() / name;
    fs::create_directories(path);
    fs::permissions(path, fs::perms::all);
    return path;
  }

  void start(const std::vector<std::string>& mounts, bool lifecycle_tools = false) {
    HostOptions options;
    for (const auto& mount : mounts) {
      options.extra_args.push_back("--mount");
      options.extra_args.push_back(mount);
    }
    options.extra_args.push_back("--mount-owner");
    options.extra_args.push_back(std::to_string(kOwnerUid) + ":" + std::to_string(kOwnerGid));
    if (lifecycle_tools) options.extra_args.push_back("--lifecycle-tools");
    host_ = start_host(options);
  }

  Json tool(const std::string& name, const Json& arguments) {
    return host_->call_tool(name, arguments, 180s);
  }
  Json ok(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_FALSE(test::McpClient::is_error(result))
        << name << " " << arguments.dump() << " failed: " << result.dump().substr(0, 800);
    return test::McpClient::payload_of(result);
  }
  std::string fails(const std::string& name, const Json& arguments) {
    const Json result = tool(name, arguments);
    EXPECT_TRUE(test::McpClient::is_error(result))
        << name << " " << arguments.dump() << " succeeded: " << result.dump().substr(0, 800);
    const Json payload = test::McpClient::payload_of(result);
    if (payload.is_string()) return payload.get<std::string>();
    return payload.is_object() ? payload.value("error", "") : payload.dump();
  }

  // The host's command line with `mount` as the only --mount, running `computers list`: the
  // plugin reads its options (and refuses a malformed entry) before anything else.
  test::CommandResult host_with_mount(const std::string& mount) {
    std::vector<std::string> argv{VC_HOST_BINARY};
    for (const auto& arg : host_args()) argv.push_back(arg);
    argv.insert(argv.end(), {"--mount", mount, "computers", "list"});
    return test::run_command(argv, 120s, "", host_environment_for());
  }

  static void expect_owned_by_owner(const fs::path& path) {
    struct stat info {};
    ASSERT_EQ(::stat(path.c_str(), &info), 0) << path;
    EXPECT_EQ(info.st_uid, kOwnerUid) << path;
    EXPECT_EQ(info.st_gid, kOwnerGid) << path;
  }

  test::TempDirectory folders_{"vc-mounts"};
  std::unique_ptr<test::McpClient> host_;
};

TEST_P(MountsTest, AgentWritesLandInTheHostFolderOwnedByTheMountOwner) {
  const fs::path project = host_folder("project");
  {
    std::ofstream(project / "README.md") << "from the host\n";
  }
  start({project.string() + ":/workspace/project"});

  // The agent sees the host's file, and its own writes land in the host folder.
  EXPECT_EQ(ok("read_file", {{"path", "/workspace/project/README.md"}}).value("content", ""),
            "from the host\n");
  ok("write_file", {{"path", "/workspace/project/notes/plan.md"}, {"content", "step 1\n"}});
  const Json ran = execute(*host_, {{"command",
                                     "cd /workspace/project && mkdir -p build && "
                                     "echo built > build/out.txt && id -u"}});
  EXPECT_EQ(ran["exit_code"], 0) << ran.dump();
  EXPECT_EQ(ran["stdout"], "0\n") << "commands run as the computer's root";

  EXPECT_EQ(read_host_file(project / "notes" / "plan.md"), "step 1\n");
  EXPECT_EQ(read_host_file(project / "build" / "out.txt"), "built\n");
  expect_owned_by_owner(project / "notes");
  expect_owned_by_owner(project / "notes" / "plan.md");
  expect_owned_by_owner(project / "build");
  expect_owned_by_owner(project / "build" / "out.txt");

  // list_directory works on the mount.
  const Json listing = ok("list_directory", {{"path", "/workspace/project"}});
  std::vector<std::string> names;
  for (const auto& entry : listing["entries"]) names.push_back(entry["name"]);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"README.md", "build", "notes"}));

  // computer_ui and runtime_status list the mount.
  for (const char* status_tool : {"computer_ui", "runtime_status"}) {
    const Json status = ok(status_tool, Json::object());
    ASSERT_TRUE(status.contains("mounts")) << status_tool << ": " << status.dump();
    ASSERT_EQ(status["mounts"].size(), 1u) << status.dump();
    EXPECT_EQ(status["mounts"][0]["host_path"], fs::canonical(project).string());
    EXPECT_EQ(status["mounts"][0]["computer_path"], "/workspace/project");
    EXPECT_EQ(status["mounts"][0]["read_only"], false);
  }

  // The engine got a bind mount, recorded in the computer's labels.
  const auto inspected = engine().inspect_container(container_name());
  ASSERT_TRUE(inspected.has_value());
  bool bound = false;
  for (const auto& mount : inspected->value("Mounts", Json::array())) {
    if (mount.value("Destination", "") == "/workspace/project") {
      bound = true;
      EXPECT_EQ(mount.value("Source", ""), fs::canonical(project).string());
      EXPECT_EQ(mount.value("RW", false), true);
    }
  }
  EXPECT_TRUE(bound) << inspected->dump().substr(0, 2000);
}

TEST_P(MountsTest, ReadOnlyMountRefusesWritesWithTheSystemsReason) {
  const fs::path docs = host_folder("docs");
  {
    std::ofstream(docs / "spec.txt") << "read me\n";
  }
  start({docs.string() + ":/mnt/docs:ro"});

  EXPECT_EQ(ok("read_file", {{"path", "/mnt/docs/spec.txt"}}).value("content", ""), "read me\n");
  EXPECT_EQ(ok("computer_ui", Json::object())["mounts"][0]["read_only"], true);
  const Json ran = execute(*host_, {{"command", "echo changed > /mnt/docs/spec.txt"}});
  EXPECT_NE(ran["exit_code"], 0) << ran.dump();
  EXPECT_NE(ran.value("stderr", "").find("Read-only file system"), std::string::npos) << ran.dump();
  const std::string refused = fails("write_file", {{"path", "/mnt/docs/new.txt"}, {"content", "x"}});
  EXPECT_NE(refused.find("Read-only file system"), std::string::npos) << refused;

  EXPECT_EQ(read_host_file(docs / "spec.txt"), "read me\n");
  EXPECT_FALSE(fs::exists(docs / "new.txt"));
}

TEST_P(MountsTest, RestartAndFactoryResetKeepTheMountsAndNeverTouchTheHostFolder) {
  const fs::path project = host_folder("project");
  start({project.string() + ":/workspace/project"}, /*lifecycle_tools=*/true);
  ok("write_file", {{"path", "/workspace/project/kept.txt"}, {"content", "kept\n"}});
  ok("write_file", {{"path", "/workspace/scratch.txt"}, {"content", "scratch\n"}});
  const auto before = engine().inspect_container(container_name());
  ASSERT_TRUE(before.has_value());

  ok("computer_restart", {{"computer_id", computer_id()}});
  EXPECT_EQ(ok("read_file", {{"path", "/workspace/project/kept.txt"}}).value("content", ""), "kept\n");

  ok("computer_factory_reset", {{"computer_id", computer_id()}});
  const auto after = engine().inspect_container(container_name());
  ASSERT_TRUE(after.has_value());
  EXPECT_NE(after->value("Id", ""), before->value("Id", "")) << "the reset made no new container";
  // The computer's own files are gone, the host folder's are there, in the host and inside.
  const Json scratch = execute(*host_, {{"command", "test -e /workspace/scratch.txt"}});
  EXPECT_NE(scratch["exit_code"], 0) << "the reset kept the computer's own files";
  EXPECT_EQ(read_host_file(project / "kept.txt"), "kept\n");
  EXPECT_EQ(ok("read_file", {{"path", "/workspace/project/kept.txt"}}).value("content", ""), "kept\n");
  // And the new container still hands its files to the owner.
  ok("write_file", {{"path", "/workspace/project/after-reset.txt"}, {"content", "new\n"}});
  expect_owned_by_owner(project / "after-reset.txt");
}

// A checkpoint holds the computer's own files, never the host folder: a restore brings those
// back, and makes its container with the same mount, which shows the host folder as it is now.
TEST_P(MountsTest, ACheckpointRestoreKeepsTheMountAndLeavesTheHostFolderAsItIs) {
  const fs::path project = host_folder("project");
  start({project.string() + ":/workspace/project"});
  ok("write_file", {{"path", "/workspace/project/before.txt"}, {"content", "before\n"}});
  ok("write_file", {{"path", "/workspace/own.txt"}, {"content", "own\n"}});
  ok("checkpoint_create", {{"name", "with-mount"}});
  ok("write_file", {{"path", "/workspace/project/after.txt"}, {"content", "after\n"}});
  ok("write_file", {{"path", "/workspace/own.txt"}, {"content", "changed\n"}});

  ok("checkpoint_restore", {{"name", "with-mount"}});
  EXPECT_EQ(ok("read_file", {{"path", "/workspace/own.txt"}}).value("content", ""), "own\n");
  // The host folder is untouched by the restore, and mounted again.
  EXPECT_EQ(read_host_file(project / "after.txt"), "after\n");
  EXPECT_EQ(ok("read_file", {{"path", "/workspace/project/after.txt"}}).value("content", ""),
            "after\n");
  EXPECT_EQ(ok("computer_ui", Json::object()).value("mounts", Json::array()).size(), 1u);
  ok("write_file", {{"path", "/workspace/project/restored.txt"}, {"content", "r\n"}});
  expect_owned_by_owner(project / "restored.txt");
}

TEST_P(MountsTest, MalformedEntriesAreRefusedWhenTheOptionsAreRead) {
  const fs::path project = host_folder("project");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {project.string() + ":workspace/project", "must be an absolute path"},
      {project.string() + ":/proc/x", "cannot be /proc or inside it"},
      {project.string() + ":/", "the computer path cannot be /"},
      {"relative/host:/workspace/project", "the host path 'relative/host' must be an absolute path"},
      {project.string() + ":/workspace/p:rx", "the mode must be ro or rw"},
  };
  for (const auto& [entry, sentence] : cases) {
    const auto result = host_with_mount(entry);
    EXPECT_FALSE(result.ok()) << entry << " was accepted";
    EXPECT_NE(result.err.find(sentence), std::string::npos) << entry << ": " << result.err;
    EXPECT_NE(result.err.find(entry), std::string::npos) << "the entry is not named: " << result.err;
  }
}

TEST_P(MountsTest, HostPathsThatCannotBeMountedAreRefusedBeforeAnythingIsMade) {
  const fs::path project = host_folder("project");
  {
    std::ofstream(project / "file.txt") << "x\n";
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {(project / "missing").string() + ":/workspace/m", "does not exist"},
      {(project / "file.txt").string() + ":/workspace/m", "is not a folder"},
      {"/etc:/workspace/m", "is a system folder of the host"},
      {"/:/workspace/m", "root folder / cannot be mounted"},
  };
  for (const auto& [entry, sentence] : cases) {
    start({entry});
    const std::string refused = fails("terminal_execute", {{"command", "echo must-not-run"}});
    EXPECT_NE(refused.find(sentence), std::string::npos) << entry << ": " << refused;
    EXPECT_NE(refused.find(entry), std::string::npos) << "the entry is not named: " << refused;
    EXPECT_FALSE(engine().inspect_container(container_name()).has_value())
        << entry << ": a container was made";
    close_host(host_);
  }
  // The engine's own data folder is refused too.
  const std::string data_root = engine().name == "podman" ? "/var/lib/containers/storage"
                                                            : "/var/lib/docker";
  if (fs::is_directory(data_root)) {
    start({data_root + ":/workspace/m"});
    const std::string refused = fails("terminal_execute", {{"command", "echo must-not-run"}});
    EXPECT_NE(refused.find("container engine's own data"), std::string::npos) << refused;
    close_host(host_);
  }
  // Two mounts at one computer path.
  HostOptions options;
  options.extra_args = {"--mount", project.string() + ":/workspace/a", "--mount",
                        (project / "..").string() + ":/workspace/a/"};
  std::vector<std::string> argv{VC_HOST_BINARY};
  for (const auto& arg : host_args(options)) argv.push_back(arg);
  argv.insert(argv.end(), {"computers", "list"});
  const auto duplicate = test::run_command(argv, 120s, "", host_environment_for());
  EXPECT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.err.find("another mount already uses /workspace/a"), std::string::npos)
      << duplicate.err;
}

TEST_P(MountsTest, AHostFolderDeletedUnderTheComputerGivesAnErrorOnUseNotADeadComputer) {
  const fs::path project = host_folder("project");
  start({project.string() + ":/workspace/project"}, /*lifecycle_tools=*/true);
  ok("write_file", {{"path", "/workspace/project/a.txt"}, {"content", "a\n"}});
  fs::remove_all(project);

  const std::string refused =
      fails("write_file", {{"path", "/workspace/project/b.txt"}, {"content", "b\n"}});
  EXPECT_NE(refused.find("No such file or directory"), std::string::npos) << refused;
  const Json ran = execute(*host_, {{"command", "ls /workspace/project; echo alive"}});
  EXPECT_NE(ran.value("stdout", "").find("alive"), std::string::npos) << ran.dump();
  EXPECT_TRUE(engine().container_running(container_name()));

  // A restart or a reset, which the engine could not finish without the folder, is refused
  // with the reason and leaves the computer running.
  for (const char* action : {"computer_restart", "computer_factory_reset"}) {
    const std::string not_done = fails(action, {{"computer_id", computer_id()}});
    EXPECT_NE(not_done.find("The host folder " + fs::canonical(folders_.path()).string() +
                            "/project mounted at /workspace/project no longer exists"),
              std::string::npos)
        << action << ": " << not_done;
    EXPECT_TRUE(engine().container_running(container_name())) << action;
  }
  EXPECT_EQ(execute(*host_, {{"command", "echo still-alive"}})["stdout"], "still-alive\n");
  EXPECT_FALSE(fs::exists(project)) << "the deleted host folder was made again";
}

TEST_P(MountsTest, TheOperatorCreatesAComputerWithAMountFromTheCommandLine) {
  const fs::path project = host_folder("project");
  const std::string id = another_computer_id();
  auto computers = [&](const std::vector<std::string>& arguments) {
    std::vector<std::string> argv{VC_HOST_BINARY};
    for (const auto& arg : host_args()) argv.push_back(arg);
    argv.emplace_back("computers");
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return test::run_command(argv, 180s, "", host_environment_for());
  };
  const auto created = computers({"create", id, "--mount", project.string() + ":/workspace/p",
                                  "--mount", project.string() + ":/mnt/p-ro:ro",
                                  "--mount-owner", "4242:4242"});
  ASSERT_TRUE(created.ok()) << created.err;
  EXPECT_NE(created.out.find("Created computer '" + id + "'"), std::string::npos) << created.out;
  EXPECT_NE(created.out.find(fs::canonical(project).string() + " mounted at /mnt/p-ro (read-only)"),
            std::string::npos)
      << created.out;

  // The mount is the computer's own: a later command line without --mount still has it.
  const auto wrote = computers({"exec", id, "--", "sh", "-c", "echo from-cli > /workspace/p/cli.txt"});
  ASSERT_TRUE(wrote.ok()) << wrote.err;
  EXPECT_EQ(read_host_file(project / "cli.txt"), "from-cli\n");
  expect_owned_by_owner(project / "cli.txt");
  const auto refused = computers({"exec", id, "--", "sh", "-c", "touch /mnt/p-ro/x"});
  EXPECT_NE(refused.err.find("Read-only file system"), std::string::npos) << refused.err;

  const auto listed = computers({"--json", "list"});
  ASSERT_TRUE(listed.ok()) << listed.err;
  const Json listing = Json::parse(listed.out, nullptr, false);
  bool found = false;
  for (const auto& computer : listing.value("computers", Json::array())) {
    if (computer.value("computer_id", "") != id) continue;
    found = true;
    ASSERT_EQ(computer.value("mounts", Json::array()).size(), 2u) << computer.dump();
    EXPECT_EQ(computer["mounts"][1]["computer_path"], "/mnt/p-ro");
    EXPECT_EQ(computer["mounts"][1]["read_only"], true);
  }
  EXPECT_TRUE(found) << listed.out;

  // A bad entry is refused before anything is made.
  const std::string other = another_computer_id();
  const auto bad = computers({"create", other, "--mount", "/etc:/workspace/etc"});
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.err.find("is a system folder of the host"), std::string::npos) << bad.err;
  EXPECT_FALSE(engine().inspect_container(container_name_for(other)).has_value());
}

TEST_P(MountsTest, ComputerCreateMountsOnlyInsideTheOperatorsMountRoot) {
  const fs::path root = host_folder("allowed");
  const fs::path project = host_folder("allowed/project");
  const fs::path outside = host_folder("outside");
  HostOptions options;
  options.extra_args = {"--lifecycle-tools", "--mount-root", root.string(), "--mount-owner",
                        "4242:4242"};
  host_ = start_host(options);

  const std::string id = another_computer_id();
  const Json created =
      ok("computer_create",
         {{"computer_id", id},
          {"mounts", Json::array({Json{{"host_path", project.string()},
                                       {"computer_path", "/workspace/project"}}})}});
  ASSERT_EQ(created.value("mounts", Json::array()).size(), 1u) << created.dump();
  EXPECT_EQ(created["mounts"][0]["host_path"], fs::canonical(project).string());
  const auto wrote = engine().run_cli(
      {"exec", container_name_for(id), "sh", "-c", "echo made > /workspace/project/made.txt"});
  ASSERT_TRUE(wrote.ok()) << wrote.err;
  EXPECT_EQ(read_host_file(project / "made.txt"), "made\n");

  // Outside the root, through a symbolic link out of it, the host's / or its ~/.ssh: refused.
  fs::create_directory_symlink(outside, root / "escape");
  const std::vector<std::string> refused_paths = {outside.string(), (root / "escape").string(),
                                                  "/", "/root/.ssh", "/etc"};
  for (const auto& host_path : refused_paths) {
    const std::string other = another_computer_id();
    const std::string why =
        fails("computer_create",
              {{"computer_id", other},
               {"mounts", Json::array({Json{{"host_path", host_path},
                                            {"computer_path", "/workspace/x"}}})}});
    const bool outside_root = why.find("only folders inside " + fs::canonical(root).string() +
                                       " (this server's --mount-root) can be mounted") !=
                              std::string::npos;
    const bool missing = why.find("does not exist") != std::string::npos;
    EXPECT_TRUE(outside_root || missing) << host_path << ": " << why;
    EXPECT_NE(why.find("Mount of " + host_path), std::string::npos) << why;
    EXPECT_FALSE(engine().inspect_container(container_name_for(other)).has_value()) << host_path;
  }
  close_host(host_);

  // Without --mount-root, computer_create mounts nothing.
  HostOptions no_root;
  no_root.extra_args = {"--lifecycle-tools"};
  host_ = start_host(no_root);
  const std::string other = another_computer_id();
  const std::string why = fails(
      "computer_create",
      {{"computer_id", other},
       {"mounts",
        Json::array({Json{{"host_path", project.string()}, {"computer_path", "/workspace/p"}}})}});
  EXPECT_NE(why.find("started without --mount-root"), std::string::npos) << why;
  EXPECT_FALSE(engine().inspect_container(container_name_for(other)).has_value());
}

// The desktop's file manager shows the mount: Thunar opened on it (through the launch tool), its
// window found by title, and a screenshot through look_at_screen kept as an artifact
// ($VC_ARTIFACT_DIR, else the test's scratch folder) for a person to look at.
TEST_P(MountsTest, TheDesktopsFileManagerShowsTheMount) {
  if (!engine().image_present(kDesktopImage)) {
    GTEST_SKIP() << "the " << engine().name << " engine has no " << kDesktopImage
                 << " (`computers prepare` makes it)";
  }
  const fs::path project = host_folder("project");
  fs::create_directories(project / "src");
  {
    std::ofstream(project / "README-from-host.md") << "# my project\n";
  }
  HostOptions options;
  options.image = kDesktopImage;
  options.environment = {{"DESKTOP_ENVIRONMENT", "true"}};
  options.extra_args = {"--mount", project.string() + ":/workspace/project"};
  host_ = start_host(options);
  ok("write_file", {{"path", "/workspace/project/written-by-agent.txt"}, {"content", "hello\n"}});

  const Json launched = ok("launch", {{"target", "thunar /workspace/project"}});
  ASSERT_TRUE(launched.contains("window") && launched["window"].is_object()) << launched.dump();
  EXPECT_NE(launched["window"].value("title", "").find("project"), std::string::npos)
      << launched.dump();
  host_->call_tool("wait_for_screen", {{"until", "stable"}, {"stable_ms", 700}}, 60s);

  const Json shot = host_->call_tool("look_at_screen", Json::object(), 120s);
  ASSERT_FALSE(test::McpClient::is_error(shot)) << shot.dump().substr(0, 800);
  std::string png;
  for (const auto& item : shot.value("content", Json::array())) {
    if (item.value("type", "") == "image") png = decode_screenshot(item.value("data", ""));
  }
  ASSERT_GT(png.size(), 1000u) << "no screenshot in " << shot.dump().substr(0, 800);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  const char* artifacts = std::getenv("VC_ARTIFACT_DIR");
  const fs::path folder = artifacts != nullptr ? fs::path(artifacts) : folders_.path();
  fs::create_directories(folder);
  const fs::path file = folder / ("thunar-mount-" + engine().name + ".png");
  std::ofstream(file, std::ios::binary) << png;
  std::cout << "screenshot of Thunar on the mount: " << file.string() << std::endl;

  const Json windows = ok("list_windows", Json::object());
  bool thunar_on_mount = false;
  for (const auto& window : windows.value("windows", Json::array())) {
    if (window.value("title", "").find("project") != std::string::npos) thunar_on_mount = true;
  }
  EXPECT_TRUE(thunar_on_mount) << windows.dump();
}

VC_INSTANTIATE_FOR_ENGINES(MountsTest);

}  // namespace
}  // namespace vc::integration
