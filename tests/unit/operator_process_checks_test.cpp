// Tests of validate-plugin's judgments of the processes extension: its table, the list result
// the op script reads, and the refusal of a malformed process id.
#include <string>

#include <gtest/gtest.h>
#include <vc-backend-1/ext/vc_backend_processes.h>
#include <vc-backend-1/vc_status.h>

#include "operator/conformance_expectations.h"

namespace vc::operator_cli {
namespace {

using backend_proxy::ExtensionOffer;
using backend_proxy::Operation;

ProbeResult finished_probe(Expected<Json> result) {
  ProbeResult probe;
  probe.completed = true;
  probe.result = std::move(result);
  return probe;
}

TEST(ProcessTableCheck, AWholeTablePassesAndAShortOrHoledOneFails) {
  ExtensionOffer whole;
  whole.returned = true;
  whole.usable = true;
  whole.struct_size = sizeof(vc_backend_processes);
  EXPECT_FALSE(processes_table_problem(whole));

  ExtensionOffer short_table;
  short_table.returned = true;
  short_table.struct_size = 40;
  const auto too_small = processes_table_problem(short_table);
  ASSERT_TRUE(too_small);
  EXPECT_EQ(*too_small,
            "get_extension(\"vc.backend.processes/1\") returned a table of struct_size 40; ABI "
            "1.3's has " +
                std::to_string(sizeof(vc_backend_processes)) +
                " bytes (all five operations), so the host ignores it. Set struct_size = "
                "sizeof(vc_backend_processes)");

  ExtensionOffer holed = whole;
  holed.null_slots = {Operation::write_process, Operation::kill_process};
  const auto null_slots = processes_table_problem(holed);
  ASSERT_TRUE(null_slots);
  EXPECT_EQ(*null_slots,
            "the table leaves write_process, kill_process NULL: a backend that offers processes "
            "implements all five operations (or returns NULL from get_extension)");
}

TEST(ProcessTableCheck, TheCheckpointsTableKeepsItsOwnWords) {
  ExtensionOffer short_table;
  short_table.returned = true;
  short_table.struct_size = 8;
  const auto problem = checkpoints_table_problem(short_table);
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("get_extension(\"vc.backend.checkpoints/1\")"), std::string::npos)
      << *problem;
  EXPECT_NE(problem->find("ABI 1.2's has"), std::string::npos) << *problem;
  EXPECT_NE(problem->find("sizeof(vc_backend_checkpoints)"), std::string::npos) << *problem;
}

TEST(ProcessListingCheck, AProcessesArrayForTheComputerPasses) {
  size_t count = 99;
  EXPECT_FALSE(process_listing_problem(
      Json{{"computer_id", "box"}, {"processes", Json::array()}}, "box", &count));
  EXPECT_EQ(count, 0u);
  const Json one = {{"computer_id", "box"},
                    {"processes", {{{"process_id", "p12"}, {"state", "running"}}}}};
  EXPECT_FALSE(process_listing_problem(one, "box", &count));
  EXPECT_EQ(count, 1u);
  EXPECT_FALSE(process_listing_problem(one, "box")) << "the count is optional";
}

TEST(ProcessListingCheck, WhatTheHostCannotReadIsNamed) {
  const auto problem = [](const Json& result) {
    return process_listing_problem(result, "box").value_or("no problem");
  };
  EXPECT_EQ(problem(Json::array()), "the list_processes result is not a JSON object");
  EXPECT_EQ(problem(Json{{"processes", Json::array()}}),
            "the list_processes result has no \"computer_id\" string");
  EXPECT_EQ(problem(Json{{"computer_id", "other"}, {"processes", Json::array()}}),
            "the list_processes result describes computer 'other', not 'box'");
  EXPECT_EQ(problem(Json{{"computer_id", "box"}}),
            "the list_processes result has no \"processes\" array");
  EXPECT_EQ(problem(Json{{"computer_id", "box"}, {"processes", Json::object()}}),
            "the list_processes result has no \"processes\" array");
  EXPECT_EQ(problem(Json{{"computer_id", "box"}, {"processes", {1}}}),
            "a listed process is not a JSON object");
  const std::string bad_id =
      "a listed process has no valid \"process_id\" ('p' and a number from 1, such as \"p3\")";
  for (const Json& id : {Json("p0"), Json("x1"), Json("p01"), Json(3)}) {
    const Json result = {{"computer_id", "box"},
                         {"processes", {{{"process_id", id}, {"state", "running"}}}}};
    EXPECT_EQ(problem(result), bad_id) << id.dump();
  }
  EXPECT_EQ(problem(Json{{"computer_id", "box"}, {"processes", {{{"process_id", "p1"}}}}}),
            "the listed process p1 has no \"state\"");
}

TEST(ProcessListingCheck, TheMalformedIdMustBeRefusedAsAnInvalidArgument) {
  EXPECT_FALSE(refusal_problem(finished_probe(Failure{VC_E_INVALID_ARGUMENT, "process_id: ..."}),
                               "read_process", VC_E_INVALID_ARGUMENT));
  const auto not_found = refusal_problem(finished_probe(Failure{VC_E_NOT_FOUND, "no p0"}),
                                         "read_process", VC_E_INVALID_ARGUMENT);
  ASSERT_TRUE(not_found);
  EXPECT_EQ(*not_found, "read_process answered VC_E_NOT_FOUND (no p0); it should have answered "
                        "VC_E_INVALID_ARGUMENT");
  const auto accepted = refusal_problem(finished_probe(Json::object()), "read_process",
                                        VC_E_INVALID_ARGUMENT);
  ASSERT_TRUE(accepted);
  EXPECT_EQ(*accepted, "read_process succeeded; it should have answered VC_E_INVALID_ARGUMENT");
}

TEST(ProcessListingCheck, AnUnsupportedListNamesTheExtension) {
  const auto problem =
      op_problem(finished_probe(Failure{VC_E_UNSUPPORTED, "no"}),
                 OpRequirement{"list_processes", 0, "the processes extension"});
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem,
            "the plugin offers the processes extension, but list_processes answered "
            "VC_E_UNSUPPORTED");
}

}  // namespace
}  // namespace vc::operator_cli
