// plugin_loader_test.cpp — PluginModule::load: every refusal with its message, and the success
// path against the conformance plugin built from the frozen 1.0 headers.
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <fstream>

#include "plugin_test_support.h"
#include "plugin_loader/descriptor_check.h"
#include "plugin_loader/plugin_capabilities.h"
#include "plugin_loader/plugin_module.h"

namespace vc::plugins {
namespace {

using testing::ScratchDir;
using testing::test_backend;

std::string refusal_of(const std::filesystem::path& path) {
  auto module = PluginModule::load(path);
  EXPECT_FALSE(module.ok()) << path << " loaded but should have been refused";
  return module.ok() ? std::string() : module.error().message;
}

// The message names the file, gives the reason, and is one line.
void expect_refusal(const std::filesystem::path& path, const std::string& reason) {
  const std::string message = refusal_of(path);
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_EQ(message.rfind("Cannot load backend plugin " + path.string() + ": ", 0), 0u) << message;
  EXPECT_NE(message.find(reason), std::string::npos)
      << "message: " << message << "\nexpected to contain: " << reason;
}

TEST(PluginLoader, RefusesAMissingFile) {
  ScratchDir scratch;
  expect_refusal(scratch.path() / "vc-backend-absent.so", ": no such file");
}

TEST(PluginLoader, RefusesADirectory) {
  ScratchDir scratch;
  expect_refusal(scratch.subdir("vc-backend-dir.so"), "not a regular file (it is a directory)");
}

TEST(PluginLoader, RefusesATextFile) {
  expect_refusal(test_backend("text"), "not a shared object (not an ELF file)");
}

TEST(PluginLoader, RefusesAnEmptyFile) {
  ScratchDir scratch;
  const auto path = scratch.path() / "vc-backend-empty.so";
  std::ofstream(path).flush();
  expect_refusal(path, "not a shared object (not an ELF file)");
}

TEST(PluginLoader, RefusesARelocatableObject) {
  ScratchDir scratch;
  const auto path =
      ScratchDir::copy_as(testing::relocatable_object(), scratch.path(), "vc-backend-object.so");
  expect_refusal(path, "not a shared object (an ELF relocatable object file)");
}

TEST(PluginLoader, RefusesATruncatedSharedObject) {
  ScratchDir scratch;
  const auto path =
      ScratchDir::copy_as(test_backend("conformance"), scratch.path(), "vc-backend-cut.so");
  std::filesystem::resize_file(path, 40);  // inside the ELF header
  expect_refusal(path, "not a shared object (corrupt ELF file: truncated ELF header)");
}

TEST(PluginLoader, RefusesAFileOtherUsersCanModify) {
  ScratchDir scratch;
  const auto path =
      ScratchDir::copy_as(test_backend("conformance"), scratch.path(), "vc-backend-open.so");
  ASSERT_EQ(::chmod(path.c_str(), 0666), 0);
  expect_refusal(
      path, "refusing a file other users can modify (mode 0666); run: chmod go-w " + path.string());
}

TEST(PluginLoader, RefusesAMissingEntrySymbol) {
  expect_refusal(
      test_backend("no-entry"),
      "entry symbol vc_plugin_entry_v1 missing (is it a backend plugin built with the SDK?)");
}

TEST(PluginLoader, NamesTheAbiOfAnotherMajorsEntrySymbol) {
  expect_refusal(test_backend("entry-v2"),
                 "entry symbol vc_plugin_entry_v1 missing; it exports vc_plugin_entry_v2 (built "
                 "for backend ABI 2, this host speaks ABI 1)");
}

TEST(PluginLoader, IncludesTheDynamicLinkersReason) {
  const std::string message = refusal_of(test_backend("missing-dependency"));
  EXPECT_NE(message.find(": dlopen failed: "), std::string::npos) << message;
  EXPECT_NE(message.find("libvc_test_missing_library.so"), std::string::npos) << message;
  EXPECT_NE(message.find("cannot open shared object file"), std::string::npos) << message;
}

TEST(PluginLoader, RefusesAnEntryThatReturnsNull) {
  expect_refusal(test_backend("entry-null"),
                 "the plugin refused to load in this host (its entry function returned NULL)");
}

TEST(PluginLoader, RefusesWrongMagic) {
  expect_refusal(test_backend("wrong-magic"),
                 "wrong magic in its descriptor (expected 0x31424356, found 0xdeadbeef)");
}

TEST(PluginLoader, RefusesAnotherAbiMajor) {
  expect_refusal(test_backend("abi-major-2"), "built for backend ABI 2, this host speaks ABI 1");
}

TEST(PluginLoader, RefusesAPluginNeedingANewerHostMinor) {
  expect_refusal(
      test_backend("needs-minor-99"),
      "needs host ABI 1.99 or newer; this host is 1.3 \u2014 upgrade mcp-virtual-computer");
}

TEST(PluginLoader, LoadsAPluginThatNeedsThisHostsMinor) {
  auto module = PluginModule::load(test_backend("op-ids"));
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_EQ(module.value()->info().abi_minor, 1u);
  EXPECT_EQ(module.value()->descriptor().min_host_abi_minor, 1u);
}

// The minimum-minor rule, as a host of each minor applies it. The plugins stay what they are:
// one needing 1.1 (op-ids) and one from the frozen 1.0 headers (conformance).
TEST(DescriptorCheck, AnOneZeroHostRefusesAPluginThatNeedsOneOne) {
  auto module = PluginModule::load(test_backend("op-ids"));
  ASSERT_TRUE(module.ok()) << module.error().message;
  const vc_plugin_descriptor& descriptor = module.value()->descriptor();
  const auto path = test_backend("op-ids");

  auto on_1_0 = check_descriptor(&descriptor, path, /*host_abi_minor=*/0);
  ASSERT_FALSE(on_1_0.ok());
  EXPECT_EQ(on_1_0.error().status, VC_E_INCOMPATIBLE);
  EXPECT_EQ(on_1_0.error().message,
            "needs host ABI 1.1 or newer; this host is 1.0 \u2014 upgrade mcp-virtual-computer");

  EXPECT_TRUE(check_descriptor(&descriptor, path, /*host_abi_minor=*/1).ok());
  EXPECT_TRUE(check_descriptor(&descriptor, path, /*host_abi_minor=*/2).ok());
  EXPECT_TRUE(check_descriptor(&descriptor, path, /*host_abi_minor=*/3).ok());
  EXPECT_TRUE(check_descriptor(&descriptor, path).ok()) << "this host speaks 1.3";
}

// The checkpoints plugin, built from the frozen 1.2 headers, needs a 1.2 host.
TEST(PluginLoader, LoadsAPluginBuiltFromTheFrozenOneTwoHeaders) {
  auto module = PluginModule::load(test_backend("checkpoints"));
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_EQ(module.value()->info().abi_minor, 2u);
  EXPECT_EQ(module.value()->descriptor().min_host_abi_minor, 2u);
}

TEST(DescriptorCheck, AnOneOneHostRefusesAPluginThatNeedsOneTwo) {
  auto module = PluginModule::load(test_backend("checkpoints"));
  ASSERT_TRUE(module.ok()) << module.error().message;
  const vc_plugin_descriptor& descriptor = module.value()->descriptor();
  const auto path = test_backend("checkpoints");

  auto on_1_1 = check_descriptor(&descriptor, path, /*host_abi_minor=*/1);
  ASSERT_FALSE(on_1_1.ok());
  EXPECT_EQ(on_1_1.error().status, VC_E_INCOMPATIBLE);
  EXPECT_EQ(on_1_1.error().message,
            "needs host ABI 1.2 or newer; this host is 1.1 \u2014 upgrade mcp-virtual-computer");

  EXPECT_TRUE(check_descriptor(&descriptor, path, /*host_abi_minor=*/2).ok());
  EXPECT_TRUE(check_descriptor(&descriptor, path, /*host_abi_minor=*/3).ok());
  EXPECT_TRUE(check_descriptor(&descriptor, path).ok()) << "this host speaks 1.3";
}

TEST(DescriptorCheck, EveryMinorAcceptsTheFrozenOneZeroPlugin) {
  auto module = PluginModule::load(test_backend("conformance"));
  ASSERT_TRUE(module.ok()) << module.error().message;
  const vc_plugin_descriptor& descriptor = module.value()->descriptor();
  EXPECT_EQ(descriptor.abi_minor, 0u);
  for (uint32_t host_minor : {0u, 1u, 2u, 3u}) {
    auto checked = check_descriptor(&descriptor, test_backend("conformance"), host_minor);
    EXPECT_TRUE(checked.ok()) << "host 1." << host_minor << ": " << checked.error().message;
  }
}

TEST(PluginLoader, RefusesADescriptorTooSmallForTheOneZeroFields) {
  expect_refusal(test_backend("struct-too-small"),
                 "its descriptor is too small (struct_size 24; a backend ABI 1.0 descriptor has " +
                     std::to_string(kDescriptorSize_1_0) + " bytes)");
}

TEST(PluginLoader, RefusesMissingIdentity) {
  expect_refusal(test_backend("null-id"), "its descriptor has no id");
  expect_refusal(test_backend("null-name"), "its descriptor has no name");
  expect_refusal(test_backend("null-create"), "its descriptor has no create_backend function");
}

TEST(PluginLoader, RefusesAnInvalidBackendName) {
  expect_refusal(test_backend("bad-name"),
                 "its backend name 'Bad_Name' is invalid (use lowercase letters, digits and '-')");
}

TEST(PluginLoader, RefusesInvalidOptionDeclarations) {
  expect_refusal(
      test_backend("option-bad-name"),
      "option #1 ('Bad_Name') has an invalid name (use lowercase letters, digits and '-')");
  expect_refusal(test_backend("option-bad-type"), "option 'mystery' has unknown type 42");
  expect_refusal(test_backend("option-duplicate"), "option 'endpoint' is declared twice");
  expect_refusal(test_backend("option-bad-default"),
                 "option 'retries' has default 'many', which is not an integer");
}

TEST(PluginLoader, LoadsTheConformancePlugin) {
  auto module = PluginModule::load(test_backend("conformance"));
  ASSERT_TRUE(module.ok()) << module.error().message;
  const PluginInfo& info = module.value()->info();
  EXPECT_EQ(info.id, "org.example.conformance");
  EXPECT_EQ(info.name, "conformance");
  EXPECT_EQ(info.version, "1.0.0");
  EXPECT_EQ(info.vendor, "mcp-virtual-computer tests");
  EXPECT_EQ(info.description,
            "Scripted backend that exercises the host side of the ABI (tests only).");
  EXPECT_EQ(info.abi_major, 1u);
  EXPECT_EQ(info.abi_minor, 0u);
  EXPECT_EQ(info.capabilities, VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_EXEC_STDIN);
  EXPECT_EQ(info.path, test_backend("conformance"));

  ASSERT_EQ(info.options.size(), 5u);
  const OptionDecl& greeting = info.options[0];
  EXPECT_EQ(greeting.name, "greeting");
  EXPECT_EQ(greeting.type, VC_OPTION_STRING);
  EXPECT_EQ(greeting.help, "Text the conformance backend starts with.");
  EXPECT_EQ(greeting.default_value, "hello");
  EXPECT_EQ(greeting.env_var, "VC_CONFORMANCE_GREETING");
  EXPECT_EQ(info.options[1].name, "verbose");
  EXPECT_EQ(info.options[1].type, VC_OPTION_BOOL);
  EXPECT_EQ(info.options[1].default_value, "false");
  EXPECT_FALSE(info.options[1].env_var.has_value());
  EXPECT_EQ(info.options[2].type, VC_OPTION_INTEGER);
  EXPECT_EQ(info.options[3].type, VC_OPTION_NUMBER);
  EXPECT_EQ(info.options[4].name, "tag");
  EXPECT_EQ(info.options[4].type, VC_OPTION_STRING_LIST);
  EXPECT_FALSE(info.options[4].default_value.has_value());

  const vc_plugin_descriptor& descriptor = module.value()->descriptor();
  EXPECT_EQ(descriptor.struct_size, sizeof(vc_plugin_descriptor));
  EXPECT_NE(descriptor.create_backend, nullptr);
}

TEST(PluginLoader, MakesARelativePathAbsolute) {
  const auto relative = std::filesystem::relative(test_backend("conformance"));
  ASSERT_TRUE(relative.is_relative());
  auto module = PluginModule::load(relative);
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_EQ(module.value()->info().path, test_backend("conformance"));
}

TEST(PluginLoader, LoadsTheSameFileTwice) {
  auto first = PluginModule::load(test_backend("conformance"));
  auto second = PluginModule::load(test_backend("conformance"));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first.value()->descriptor().create_backend,
            second.value()->descriptor().create_backend);
}

TEST(CapabilityNames, NamesEveryBitInOrderAndIgnoresUnknownOnes) {
  EXPECT_TRUE(capability_names(0).empty());
  const vc_caps all = (VC_CAP_IMAGES << 1) - 1;
  EXPECT_EQ(capability_names(all | (UINT64_C(1) << 40)),
            (std::vector<std::string>{"isolated", "persistent", "restart", "factory-reset",
                                      "network-access", "desktop", "exec-stdin", "wait-for-death",
                                      "kills-process-tree", "images"}));
  EXPECT_EQ(capability_names(VC_CAP_DESKTOP | VC_CAP_ISOLATED),
            (std::vector<std::string>{"isolated", "desktop"}));
}

}  // namespace
}  // namespace vc::plugins
