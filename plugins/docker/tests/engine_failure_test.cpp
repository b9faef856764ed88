// EngineError -> op failure: statuses and actionable sentences.
#include <gtest/gtest.h>

#include "docker_profile.h"
#include "engine_failure.h"
#include "process_group_kill.h"

namespace vc::container {
namespace {

TEST(EngineFailure, ConnectErrorNamesAddressAndHint) {
  engine::EngineError error{engine::EngineErrorKind::kConnect, "connection refused", 0, -111, ""};
  auto failure = failure_from_engine(docker::docker_profile(), "unix:///var/run/docker.sock",
                                     error, "inspect container kilntainer-x");
  EXPECT_EQ(failure.status, VC_E_UNAVAILABLE);
  EXPECT_EQ(failure.message, "Cannot connect to the Docker engine at unix:///var/run/docker.sock: "
                             "connection refused. Is dockerd running?");
  EXPECT_EQ(failure.details["code"], "docker.engine_unreachable");
  EXPECT_EQ(failure.details["retryable"], true);
}

TEST(EngineFailure, HttpStatusCarriesEngineMessage) {
  engine::EngineError error{engine::EngineErrorKind::kHttpStatus,
                            "engine answered 500: boom.", 500, 0, "driver failed programming.\n"};
  auto failure = failure_from_engine(docker::docker_profile(), "unix:///x", error,
                                     "start container kilntainer-x");
  EXPECT_EQ(failure.status, VC_E_FAILED);
  EXPECT_EQ(failure.message,
            "The Docker engine refused to start container kilntainer-x: driver failed programming.");
  EXPECT_EQ(failure.details["engine_status"], 500);
}

TEST(EngineFailure, StatusMapping) {
  auto status_for = [](engine::EngineErrorKind kind, int http) {
    engine::EngineError error{kind, "m", http, 0, ""};
    return failure_from_engine(docker::docker_profile(), "a", error, "do").status;
  };
  EXPECT_EQ(status_for(engine::EngineErrorKind::kHttpStatus, 404), VC_E_NOT_FOUND);
  EXPECT_EQ(status_for(engine::EngineErrorKind::kHttpStatus, 403), VC_E_PERMISSION);
  EXPECT_EQ(status_for(engine::EngineErrorKind::kTimeout, 0), VC_E_TIMEOUT);
  EXPECT_EQ(status_for(engine::EngineErrorKind::kCancelled, 0), VC_E_CANCELLED);
  EXPECT_EQ(status_for(engine::EngineErrorKind::kIncompatible, 0), VC_E_INCOMPATIBLE);
}

TEST(ProcessGroupKill, ProcParsing) {
  EXPECT_TRUE(cgroup_mentions_container(
      "12:pids:/docker/3150946a0b1c2d3e4f5a6b7c8d9e0f1a\n",
      "3150946a0b1c2d3e4f5a6b7c8d9e0f1a"));
  EXPECT_FALSE(cgroup_mentions_container("0::/user.slice\n", "3150946a0b1c2d3e"));
  EXPECT_FALSE(cgroup_mentions_container("0::/\n", ""));
  EXPECT_EQ(innermost_pid("Name:\tsleep\nNSpid:\t28991\t8\nNSpgid:\t1\n"), 8);
  EXPECT_EQ(innermost_pid("NSpid:\t42\n"), 42);
  EXPECT_FALSE(innermost_pid("Name:\tsleep\n"));
}

}  // namespace
}  // namespace vc::container
