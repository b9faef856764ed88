// plugin_search_test.cpp — the search path, discovery with its skipped files, the listing, and
// resolving --backend.
#include <gtest/gtest.h>

#include <fstream>

#include "plugin_test_support.h"
#include "plugin_loader/plugin_discovery.h"
#include "plugin_loader/plugin_search.h"

namespace vc::plugins {
namespace {

namespace fs = std::filesystem;
using testing::ScopedEnv;
using testing::ScratchDir;
using testing::test_backend;
using testing::test_backend_dir;

constexpr const char* kPathVariable = "MCP_VIRTUAL_COMPUTER_PLUGIN_PATH";

const SkippedFile* find_skipped(const Discovery& discovery, const fs::path& path) {
  for (const SkippedFile& file : discovery.skipped) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

std::vector<std::string> plugin_names(const Discovery& discovery) {
  std::vector<std::string> names;
  for (const PluginInfo& plugin : discovery.plugins) names.push_back(plugin.name);
  return names;
}

TEST(PluginSearchPath, FileNameOfABackend) {
  EXPECT_EQ(plugin_file_name("docker"), "vc-backend-docker.so");
}

TEST(PluginSearchPath, BuiltInDirectoryIsBesideTheExecutable) {
  const fs::path executable = fs::read_symlink("/proc/self/exe");
  EXPECT_EQ(builtin_plugin_dir(),
            (executable.parent_path() / VC_PLUGIN_RELATIVE_DIR).lexically_normal());
}

TEST(PluginSearchPath, PluginDirsThenEnvironmentThenBuiltIn) {
  ScopedEnv env(kPathVariable, "/env/one::/env/two/:env/relative:/cli/a");
  const auto path = plugin_search_path({"/cli/a", "/cli/b/", "cli/relative", "/cli/a"});
  const std::vector<fs::path> expected = {"/cli/a",
                                          "/cli/b",
                                          fs::current_path() / "cli/relative",
                                          "/env/one",
                                          "/env/two",
                                          fs::current_path() / "env/relative",
                                          builtin_plugin_dir()};
  EXPECT_EQ(path, expected);
}

TEST(PluginSearchPath, WithoutTheEnvironmentVariable) {
  ScopedEnv env(kPathVariable, nullptr);
  EXPECT_EQ(plugin_search_path({"/cli/a"}),
            (std::vector<fs::path>{"/cli/a", builtin_plugin_dir()}));
  EXPECT_EQ(plugin_search_path({}), (std::vector<fs::path>{builtin_plugin_dir()}));
}

TEST(PluginDiscovery, ListsLoadablePluginsAndWhyTheOthersWereSkipped) {
  const Discovery discovery = discover_plugins({test_backend_dir()});
  EXPECT_EQ(plugin_names(discovery),
            (std::vector<std::string>{"checkpoints", "conformance", "factory-fails", "flawed",
                                      "misbehaving", "op-ids", "processes"}));
  ASSERT_EQ(discovery.searched.size(), 1u);
  EXPECT_TRUE(discovery.searched[0].exists);

  const std::vector<std::pair<std::string, std::string>> expected = {
      {"text", "not a shared object (not an ELF file)"},
      {"no-entry", "entry symbol vc_plugin_entry_v1 missing"},
      {"entry-v2", "it exports vc_plugin_entry_v2"},
      {"entry-null", "refused to load in this host"},
      {"wrong-magic", "wrong magic"},
      {"abi-major-2", "built for backend ABI 2, this host speaks ABI 1"},
      {"needs-minor-99", "needs host ABI 1.99 or newer"},
      {"struct-too-small", "its descriptor is too small"},
      {"null-create", "no create_backend function"},
      {"bad-name", "its backend name 'Bad_Name' is invalid"},
      {"option-duplicate", "option 'endpoint' is declared twice"},
      {"missing-dependency", "dlopen failed: "},
      // Variants of the checkpoints plugin under other file names.
      {"checkpoints-null-slot", "it provides the backend 'checkpoints'"},
      {"checkpoints-short", "it provides the backend 'checkpoints'"},
      // And of the processes plugin.
      {"processes-null-slot", "it provides the backend 'processes'"},
      {"processes-short", "it provides the backend 'processes'"},
  };
  for (const auto& [name, reason] : expected) {
    const SkippedFile* skipped = find_skipped(discovery, test_backend(name));
    ASSERT_NE(skipped, nullptr) << name << " was not listed as skipped";
    EXPECT_NE(skipped->reason.find(reason), std::string::npos) << name << ": " << skipped->reason;
    EXPECT_EQ(skipped->reason.find("Cannot load"), std::string::npos) << skipped->reason;
  }
}

TEST(PluginDiscovery, AnEarlierDirectoryShadowsALaterFileOfTheSameName) {
  ScratchDir scratch;
  const fs::path first = scratch.subdir("first");
  const fs::path second = scratch.subdir("second");
  const fs::path winner =
      ScratchDir::copy_as(test_backend("conformance"), first, "vc-backend-conformance.so");
  const fs::path shadowed =
      ScratchDir::copy_as(test_backend("conformance"), second, "vc-backend-conformance.so");
  std::ofstream(first / "README.txt") << "not a plugin\n";
  const fs::path missing = scratch.path() / "missing";

  const Discovery discovery = discover_plugins({first, missing, second});
  ASSERT_EQ(discovery.plugins.size(), 1u);
  EXPECT_EQ(discovery.plugins[0].path, winner);
  ASSERT_EQ(discovery.skipped.size(), 1u);  // README.txt is ignored silently
  EXPECT_EQ(discovery.skipped[0].path, shadowed);
  EXPECT_EQ(discovery.skipped[0].reason,
            "shadowed by " + winner.string() + " (an earlier directory on the search path wins)");
  ASSERT_EQ(discovery.searched.size(), 3u);
  EXPECT_FALSE(discovery.searched[1].exists);
}

TEST(PluginDiscovery, SkipsAPluginWhoseFileNameDoesNotMatchItsName) {
  ScratchDir scratch;
  const fs::path renamed =
      ScratchDir::copy_as(test_backend("conformance"), scratch.path(), "vc-backend-other.so");
  const Discovery discovery = discover_plugins({scratch.path()});
  EXPECT_TRUE(discovery.plugins.empty());
  ASSERT_EQ(discovery.skipped.size(), 1u);
  EXPECT_EQ(discovery.skipped[0].path, renamed);
  EXPECT_EQ(discovery.skipped[0].reason,
            "it provides the backend 'conformance', which --backend conformance looks for in a "
            "file named vc-backend-conformance.so; rename the file");
}

TEST(PluginDiscovery, FormatsATableTheSkippedFilesAndTheDirectories) {
  ScratchDir scratch;
  const fs::path dir = scratch.subdir("plugins");
  const fs::path plugin =
      ScratchDir::copy_as(test_backend("conformance"), dir, "vc-backend-conformance.so");
  ScratchDir::copy_as(test_backend("text"), dir, "vc-backend-text.so");
  const fs::path missing = scratch.path() / "missing";
  const std::string text = format_discovery(discover_plugins({dir, missing}));

  const std::string expected =
      "Backend plugins:\n"
      "  NAME         VERSION  ABI  ID                       CAPABILITIES\n"
      "  conformance  1.0.0    1.0  org.example.conformance  persistent, restart, exec-stdin\n"
      "      Scripted backend that exercises the host side of the ABI (tests only).\n"
      "      options: --greeting, --verbose, --retries, --ratio, --tag\n"
      "      path: " +
      plugin.string() +
      "\n"
      "\n"
      "Skipped files:\n"
      "  " +
      (dir / "vc-backend-text.so").string() +
      ": not a shared object (not an ELF file)\n"
      "\n"
      "Searched directories, in order:\n"
      "  " +
      dir.string() +
      "\n"
      "  " +
      missing.string() + " (does not exist)\n";
  EXPECT_EQ(text, expected);
}

TEST(PluginDiscovery, SaysSoWhenNothingWasFound) {
  ScratchDir scratch;
  const std::string text = format_discovery(discover_plugins({scratch.path()}));
  EXPECT_EQ(text.rfind("No backend plugins found.\n", 0), 0u) << text;
}

TEST(FindAndLoadBackend, FindsABackendByName) {
  auto module = find_and_load_backend("conformance", {test_backend_dir()});
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_EQ(module.value()->info().path, test_backend("conformance"));
}

TEST(FindAndLoadBackend, TheFirstFileFoundWinsEvenIfItCannotBeLoaded) {
  ScratchDir scratch;
  const fs::path first = scratch.subdir("first");
  const fs::path broken =
      ScratchDir::copy_as(test_backend("text"), first, "vc-backend-conformance.so");
  auto module = find_and_load_backend("conformance", {first, test_backend_dir()});
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message, "Cannot load backend plugin " + broken.string() +
                                        ": not a shared object (not an ELF file)");
}

TEST(FindAndLoadBackend, AValueWithASlashOrSoSuffixIsAPath) {
  auto by_path = find_and_load_backend(test_backend("conformance").string(), {});
  ASSERT_TRUE(by_path.ok()) << by_path.error().message;
  auto relative = find_and_load_backend("no-such-plugin.so", {test_backend_dir()});
  ASSERT_FALSE(relative.ok());
  EXPECT_EQ(relative.error().message, "Cannot load backend plugin " +
                                          (fs::current_path() / "no-such-plugin.so").string() +
                                          ": no such file");
}

TEST(FindAndLoadBackend, AnUnknownNameListsTheAvailableBackends) {
  ScratchDir scratch;
  auto module = find_and_load_backend("dockr", {test_backend_dir(), scratch.path()});
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().status, VC_E_NOT_FOUND);
  EXPECT_EQ(module.error().message,
            "No backend plugin named 'dockr'. Available backends: checkpoints, conformance, "
            "factory-fails, flawed, misbehaving, op-ids, processes (searched: " +
                test_backend_dir().string() + ", " + scratch.path().string() + ").");
}

TEST(FindAndLoadBackend, AnUnknownNameWithNoPluginsAnywhere) {
  ScratchDir scratch;
  auto module = find_and_load_backend("docker", {scratch.path()});
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message,
            "No backend plugin named 'docker', and no backend plugins were found (searched: " +
                scratch.path().string() + ").");
}

TEST(FindAndLoadBackend, AnEmptyNameIsAUsageError) {
  auto module = find_and_load_backend("", {test_backend_dir()});
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.error().message,
            "No backend given: use --backend NAME or --backend /path/to/plugin.so.");
}

}  // namespace
}  // namespace vc::plugins
