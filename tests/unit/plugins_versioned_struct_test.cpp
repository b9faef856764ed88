// A plugin's struct_size that ends inside a field must not hand the host part of a pointer
// (found by the plugin_descriptor fuzzer: an option declaration whose struct_size covered one
// byte of its help pointer).
#include <gtest/gtest.h>

#include <vc-backend-1/vc_sdk.h>

#include "plugin_loader/versioned_struct.h"

namespace vc::plugins {
namespace {

TEST(VersionedStruct, OnlyWholeFieldsAreTaken) {
  EXPECT_EQ(whole_fields_size(40, sizeof(vc_option_decl)), 40u);
  EXPECT_EQ(whole_fields_size(17, sizeof(vc_option_decl)), 16u);  // inside help: name only
  EXPECT_EQ(whole_fields_size(23, sizeof(vc_option_decl)), 16u);
  EXPECT_EQ(whole_fields_size(4000, sizeof(vc_option_decl)), 40u);  // capped at ours
  EXPECT_EQ(whole_fields_size(6, sizeof(vc_option_decl)), 4u);      // header: 32-bit fields
  // The descriptor's header runs to its id pointer.
  EXPECT_EQ(whole_fields_size(14, sizeof(vc_plugin_descriptor), 24), 12u);
  EXPECT_EQ(whole_fields_size(28, sizeof(vc_plugin_descriptor), 24), 24u);
}

TEST(VersionedStruct, APartlyCoveredPointerReadsAsNull) {
  const char* help = "help text";
  vc_option_decl raw{};
  raw.struct_size = offsetof(vc_option_decl, help) + 1;
  raw.type = VC_OPTION_STRING;
  raw.name = "name";
  raw.help = help;
  vc_option_decl copy{};
  copy_versioned(&copy, &raw);
  EXPECT_STREQ(copy.name, "name");
  EXPECT_EQ(copy.help, nullptr);
}

}  // namespace
}  // namespace vc::plugins
