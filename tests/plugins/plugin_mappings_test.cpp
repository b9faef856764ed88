// plugin_mappings_test.cpp — the table the fatal-signal report reads: a loaded plugin's code is
// found there under its name and path, the host's own code is not.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "plugin_test_support.h"
#include "plugin_loader/plugin_mappings.h"
#include "plugin_loader/plugin_module.h"

namespace vc::plugins {
namespace {

using testing::test_backend;

uintptr_t address_of_create_backend(const PluginModule& module) {
  const auto function = module.descriptor().create_backend;
  uintptr_t address = 0;
  static_assert(sizeof function == sizeof address);
  std::memcpy(&address, &function, sizeof address);
  return address;
}

TEST(PluginMappings, FindsALoadedPluginsCodeUnderItsNameAndPath) {
  auto module = PluginModule::load(test_backend("conformance"));
  ASSERT_TRUE(module.ok()) << module.error().message;

  MappedPlugin found;
  ASSERT_TRUE(find_mapped_plugin(address_of_create_backend(*module.value()), found));
  EXPECT_STREQ(found.name, "conformance");
  EXPECT_EQ(std::string(found.path), test_backend("conformance").string());
}

TEST(PluginMappings, DoesNotClaimTheHostsOwnCode) {
  auto module = PluginModule::load(test_backend("conformance"));
  ASSERT_TRUE(module.ok()) << module.error().message;

  MappedPlugin found;
  uintptr_t host_code = 0;
  const auto function = &find_mapped_plugin;
  std::memcpy(&host_code, &function, sizeof host_code);
  EXPECT_FALSE(find_mapped_plugin(host_code, found)) << found.path;
  EXPECT_FALSE(find_mapped_plugin(0, found)) << found.path;
}

}  // namespace
}  // namespace vc::plugins
