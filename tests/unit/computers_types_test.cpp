// Tests of ComputerInfo's JSON form and of the documents sent to and read from a backend.
#include <stdexcept>

#include <gtest/gtest.h>

#include "computers/computer_types.h"
#include "computers/death_watch.h"
#include "computers/operation_documents.h"

namespace vc::computers {
namespace {

Json full_info() {
  return Json{{"computer_id", "dev-box"},
              {"sandbox_id", "abc123"},
              {"state", "running"},
              {"temporary", false},
              {"image", "debian:bookworm-slim"},
              {"created_at", "2025-01-31T12:00:00Z"},
              {"network_access", false},
              {"desktop_environment", true},
              {"desktop_url", "ws://127.0.0.1:49153/websockify"}};
}

TEST(ComputerInfoTest, RoundTripsEveryFieldInOrder) {
  Json doc = full_info();
  ComputerInfo info = ComputerInfo::from_json(doc);
  EXPECT_EQ(info.computer_id, "dev-box");
  EXPECT_EQ(info.sandbox_id, "abc123");
  EXPECT_FALSE(info.network_access);
  EXPECT_TRUE(info.desktop_environment);
  EXPECT_EQ(info.desktop_url, "ws://127.0.0.1:49153/websockify");
  EXPECT_EQ(info.to_json().dump(), doc.dump());
}

TEST(ComputerInfoTest, NullsAndAbsentOptionalsBecomeEmpty) {
  ComputerInfo info = ComputerInfo::from_json(
      Json{{"computer_id", "dev-box"}, {"image", nullptr}, {"desktop_url", nullptr}, {"extra", 1}});
  EXPECT_FALSE(info.image.has_value());
  EXPECT_FALSE(info.created_at.has_value());
  EXPECT_FALSE(info.desktop_url.has_value());
  EXPECT_TRUE(info.network_access);
  Json out = info.to_json();
  EXPECT_TRUE(out["image"].is_null());
  EXPECT_TRUE(out["desktop_url"].is_null());
}

TEST(ComputerInfoTest, MountsAreReadAndWrittenOnlyWhenThereAreSome) {
  Json doc = full_info();
  doc["mounts"] = Json::array({Json{{"host_path", "/home/me/p"},
                                    {"computer_path", "/workspace/p"},
                                    {"read_only", false}},
                               Json{{"host_path", "/srv/docs"},
                                    {"computer_path", "/mnt/docs"},
                                    {"read_only", true}}});
  ComputerInfo info = ComputerInfo::from_json(doc);
  ASSERT_EQ(info.mounts.size(), 2u);
  EXPECT_EQ(info.mounts[1].computer_path, "/mnt/docs");
  EXPECT_TRUE(info.mounts[1].read_only);
  EXPECT_EQ(info.to_json()["mounts"], doc["mounts"]);
  EXPECT_FALSE(ComputerInfo::from_json(full_info()).to_json().contains("mounts"));
  doc["mounts"] = "/home/me/p:/workspace/p";
  EXPECT_THROW(ComputerInfo::from_json(doc), std::invalid_argument);
}

TEST(ComputerInfoTest, RejectsDocumentsItCannotTrust) {
  EXPECT_THROW(ComputerInfo::from_json(Json::array()), std::invalid_argument);
  EXPECT_THROW(ComputerInfo::from_json(Json{{"sandbox_id", "x"}}), std::invalid_argument);
  Json bad = full_info();
  bad["temporary"] = "no";
  try {
    ComputerInfo::from_json(bad);
    FAIL() << "expected a type error";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("\"temporary\""), std::string::npos);
  }
}

TEST(OperationDocumentsTest, ReadsExecResults) {
  auto exited =
      read_exec_result(Json{{"exit_code", 127}, {"outcome", "exited"}, {"duration_ms", 9}});
  ASSERT_TRUE(exited.ok());
  EXPECT_EQ(exited.value().exit_code, 127);
  EXPECT_EQ(exited.value().duration_ms, 9);

  auto timed_out = read_exec_result(Json{{"outcome", "timed_out"}});
  ASSERT_TRUE(timed_out.ok());
  EXPECT_EQ(timed_out.value().outcome, ExecOutcome::timed_out);
  EXPECT_FALSE(timed_out.value().duration_ms.has_value());

  EXPECT_FALSE(read_exec_result(Json{{"outcome", "exited"}}).ok()) << "an exit needs its code";
  EXPECT_FALSE(read_exec_result(Json{{"exit_code", 0}}).ok());
  EXPECT_FALSE(read_exec_result(Json::array()).ok());
}

TEST(OperationDocumentsTest, ReadsProgressEvents) {
  auto event = read_progress_event(R"({"progress":0.5,"total":4,"message":"Pulling"})");
  ASSERT_TRUE(event.has_value());
  EXPECT_EQ(event->progress, 0.5);
  EXPECT_EQ(event->total, 4.0);
  EXPECT_EQ(event->message, "Pulling");
  EXPECT_FALSE(read_progress_event("{").has_value());
  EXPECT_FALSE(read_progress_event(R"({"total":4})").has_value());
  EXPECT_FALSE(read_progress_event(R"({"progress":"half"})").has_value());
}

TEST(DeathWatchTest, TheDiedMessageShowsTwelveCharactersOfTheSandboxId) {
  EXPECT_EQ(died_message("0123456789abcdef"), "Sandbox 0123456789ab died during command execution");
  EXPECT_EQ(died_message("short"), "Sandbox short died during command execution");
}

}  // namespace
}  // namespace vc::computers
