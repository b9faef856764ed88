// Tests of validate-plugin's judgments of the checkpoints extension (its table, a refusal the
// op script expects) and of the operator's checkpoint table.
#include <string>

#include <gtest/gtest.h>
#include <vc-backend-1/vc_status.h>

#include "operator/computer_table.h"
#include "operator/conformance_expectations.h"

namespace vc::operator_cli {
namespace {

using backend_proxy::ExtensionOffer;
using backend_proxy::Operation;

ProbeResult completed_with(Expected<Json> result) {
  ProbeResult probe;
  probe.completed = true;
  probe.result = std::move(result);
  return probe;
}

TEST(CheckpointTableCheck, AWholeTablePassesAndAShortOrHoledOneFails) {
  ExtensionOffer whole;
  whole.returned = true;
  whole.usable = true;
  whole.struct_size = sizeof(vc_backend_checkpoints);
  EXPECT_FALSE(checkpoints_table_problem(whole));

  ExtensionOffer short_table;
  short_table.returned = true;
  short_table.struct_size = 24;
  const auto too_small = checkpoints_table_problem(short_table);
  ASSERT_TRUE(too_small);
  EXPECT_NE(too_small->find("struct_size 24; ABI 1.2's has " +
                            std::to_string(sizeof(vc_backend_checkpoints)) + " bytes"),
            std::string::npos)
      << *too_small;

  ExtensionOffer holed = whole;
  holed.null_slots = {Operation::fork_checkpoint, Operation::delete_checkpoint};
  const auto null_slots = checkpoints_table_problem(holed);
  ASSERT_TRUE(null_slots);
  EXPECT_NE(null_slots->find("leaves fork_checkpoint, delete_checkpoint NULL"), std::string::npos)
      << *null_slots;
}

TEST(CheckpointTableCheck, TheExpectedRefusalIsTheOnlyPass) {
  EXPECT_FALSE(refusal_problem(completed_with(Failure{VC_E_INVALID_ARGUMENT, "bad name"}),
                               "create_checkpoint", VC_E_INVALID_ARGUMENT));
  const auto accepted = refusal_problem(completed_with(Json::object()), "create_checkpoint",
                                        VC_E_INVALID_ARGUMENT);
  ASSERT_TRUE(accepted);
  EXPECT_EQ(*accepted, "create_checkpoint succeeded; it should have answered VC_E_INVALID_ARGUMENT");
  const auto other = refusal_problem(completed_with(Failure{VC_E_FAILED, "tag error"}),
                                     "create_checkpoint", VC_E_INVALID_ARGUMENT);
  ASSERT_TRUE(other);
  EXPECT_EQ(*other, "create_checkpoint answered VC_E_FAILED (tag error); it should have answered "
                    "VC_E_INVALID_ARGUMENT");
  ProbeResult silent;
  EXPECT_TRUE(refusal_problem(silent, "create_checkpoint", VC_E_INVALID_ARGUMENT));
}

TEST(CheckpointTableCheck, AnExtensionsOperationAnsweringUnsupportedNamesTheExtension) {
  const auto problem =
      op_problem(completed_with(Failure{VC_E_UNSUPPORTED, "no"}),
                 OpRequirement{"list_checkpoints", 0, "the checkpoints extension"});
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "the plugin offers the checkpoints extension, but list_checkpoints answered "
            "VC_E_UNSUPPORTED");
}

TEST(CheckpointTable, RowsOldestFirstWithReadableSizes) {
  computers::CheckpointListing listing;
  listing.computer_id = "box";
  EXPECT_EQ(format_checkpoint_table(listing), "Computer 'box' has no checkpoints.\n");
  listing.checkpoints.push_back({"before-upgrade", "box", "2026-12-07T17:02:03Z", 812, false, {}});
  listing.checkpoints.push_back({"v2", "box", "2026-12-08T09:00:00Z", 3 * 1024 * 1024 + 512 * 1024,
                                 false, true});
  EXPECT_EQ(format_checkpoint_table(listing),
            "NAME            CREATED               SIZE     CONTENTS\n"
            "before-upgrade  2026-12-07T17:02:03Z  812 B    files\n"
            "v2              2026-12-08T09:00:00Z  3.5 MiB  files\n");
}

}  // namespace
}  // namespace vc::operator_cli
