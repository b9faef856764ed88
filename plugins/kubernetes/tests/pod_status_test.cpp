// Unit tests of pod_status: pods as a 1.20 API server returned them (fixtures/pods, one per
// situation: running, unschedulable, image never pulled, exited, init container failed, crash
// loop, being deleted) and hostile documents. No cluster is needed.
#include "pod_status.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

using nlohmann::json;

json fixture(const std::string& name) {
  std::ifstream file(std::string(VC_KUBERNETES_FIXTURES) + "/pods/" + name + ".json");
  EXPECT_TRUE(file) << name;
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
}

TEST(PodStatus, RunningPodIsARunningComputerWithItsIdentity) {
  const PodView view = read_pod(fixture("running"));
  EXPECT_EQ(view.name, "running");
  EXPECT_EQ(view.computer_id, "running");
  EXPECT_TRUE(view.owned);
  EXPECT_FALSE(view.temporary);
  EXPECT_FALSE(view.desktop_mode);
  EXPECT_EQ(view.image, "vc-test-busybox:latest");
  EXPECT_EQ(view.phase, "Running");
  EXPECT_TRUE(view.computer_ready);
  EXPECT_EQ(view.state, "running");
  EXPECT_FALSE(view.uid.empty());
  EXPECT_FALSE(view.resource_version.empty());
  EXPECT_EQ(view.created_at.size(), std::string("2026-12-06T19:55:00Z").size());
  EXPECT_EQ(pod_start_blocker(fixture("running")), "");
  EXPECT_FALSE(pod_death(fixture("running")).has_value());
}

TEST(PodStatus, UnschedulablePodSaysTheSchedulersReason) {
  const json pod = fixture("unschedulable");
  EXPECT_EQ(read_pod(pod).state, "created");
  const std::string blocker = pod_start_blocker(pod);
  EXPECT_EQ(blocker.rfind("The pod unschedulable cannot be scheduled: 0/1 nodes are available", 0), 0u)
      << blocker;
  EXPECT_NE(blocker.find("Insufficient memory"), std::string::npos) << blocker;
  EXPECT_EQ(blocker.substr(blocker.size() - 8), " memory.") << "one full stop: " << blocker;
  EXPECT_FALSE(pod_death(pod).has_value());
}

TEST(PodStatus, AClaimStillBeingProvisionedIsWaitedForNotABlocker) {
  json pod = fixture("unschedulable");
  pod["status"]["conditions"][0]["message"] =
      "0/1 nodes are available: 1 pod has unbound immediate PersistentVolumeClaims.";
  EXPECT_EQ(pod_start_blocker(pod), "");
  EXPECT_EQ(pod_waiting_note(pod),
            "not scheduled yet: 0/1 nodes are available: 1 pod has unbound immediate "
            "PersistentVolumeClaims.");
  // A claim bound to a volume the scheduler's cache has not seen yet: it retries by itself.
  pod["status"]["conditions"][0]["message"] =
      "0/1 nodes are available: 1 pvc(s) bound to non-existent pv(s).";
  EXPECT_EQ(pod_start_blocker(pod), "");
  // A claim made just before the pod, not yet in the scheduler's cache.
  pod["status"]["conditions"][0]["message"] =
      "0/1 nodes are available: 1 persistentvolumeclaim \"kilntainer-h-1\" not found.";
  EXPECT_EQ(pod_start_blocker(pod), "");
  EXPECT_EQ(pod_waiting_note(fixture("noimage")).rfind(
                "its container computer is waiting (ErrImageNeverPull: ", 0),
            0u);
}

TEST(PodStatus, MissingImageNamesTheImageAndTheKubeletsReason) {
  const std::string blocker = pod_start_blocker(fixture("noimage"));
  EXPECT_EQ(blocker.rfind("The pod noimage cannot start: its container computer's image "
                          "\"vc-missing:1\" cannot be pulled (ErrImageNeverPull: ",
                          0),
            0u)
      << blocker;
}

TEST(PodStatus, FailedInitContainerIsReportedWithItsExitCode) {
  const json pod = fixture("initfail");
  const std::string blocker = pod_start_blocker(pod);
  EXPECT_EQ(blocker, "The pod initfail cannot start: its init container seed-claim failed with "
                     "exit code 1.")
      << blocker;
  EXPECT_EQ(read_pod(pod).state, "dead");
}

TEST(PodStatus, CrashLoopIsABlocker) {
  const std::string blocker = pod_start_blocker(fixture("crashloop"));
  EXPECT_EQ(blocker.rfind("The pod crashloop cannot start: its container computer cannot run "
                          "(CrashLoopBackOff: ",
                          0),
            0u)
      << blocker;
}

TEST(PodStatus, ExitedComputerIsADeathWithItsExitCode) {
  const json pod = fixture("exited");
  EXPECT_EQ(read_pod(pod).state, "dead");
  const auto death = pod_death(pod);
  ASSERT_TRUE(death.has_value());
  EXPECT_EQ(death->exit_code, 3);
  EXPECT_EQ(death->reason.rfind("the computer's container exited with code 3", 0), 0u)
      << death->reason;
  EXPECT_NE(pod_start_blocker(pod).find("exited with code 3"), std::string::npos);
}

TEST(PodStatus, PodBeingDeletedIsStoppedAndADeath) {
  const json pod = fixture("deleting");
  const PodView view = read_pod(pod);
  EXPECT_TRUE(view.deleting);
  EXPECT_EQ(view.state, "stopped");
  const auto death = pod_death(pod);
  ASSERT_TRUE(death.has_value());
  EXPECT_EQ(death->reason, "the pod was deleted");
}

TEST(PodStatus, EvictionIsReportedWithTheKubeletsMessage) {
  json pod = fixture("running");
  pod["status"] = {{"phase", "Failed"},
                   {"reason", "Evicted"},
                   {"message", "The node was low on resource: memory."}};
  const auto death = pod_death(pod);
  ASSERT_TRUE(death.has_value());
  EXPECT_EQ(death->reason, "the pod was evicted: The node was low on resource: memory.");
}

TEST(PodStatus, ForeignPodIsNotOurs) {
  json pod = fixture("running");
  pod["metadata"].erase("labels");
  pod["metadata"].erase("annotations");
  const PodView view = read_pod(pod);
  EXPECT_FALSE(view.owned);
  EXPECT_EQ(view.computer_id, "");
  EXPECT_EQ(view.image, "vc-test-busybox:latest");  // from the container when not annotated
}

TEST(PodStatus, HostileDocumentsNeitherThrowNorEchoUnbounded) {
  const std::string huge(1 << 20, 'x');
  const json hostile[] = {
      json(),
      json::array({1, 2}),
      json("pod"),
      {{"metadata", 5}, {"status", "x"}},
      {{"metadata", {{"labels", {{"kilntainers.computer-id", 7}}}}},
       {"status", {{"containerStatuses", {1, "x", json::object()}}, {"conditions", 3}}}},
      {{"metadata", {{"name", huge}}},
       {"status",
        {{"conditions",
          {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"},
            {"message", huge}}}}}}},
      {{"status",
        {{"phase", "Running"},
         {"containerStatuses",
          {{{"name", "computer"}, {"ready", true}, {"state", {{"running", 1}}},
            {"restartCount", "many"}}}}}}},
      {{"status",
        {{"initContainerStatuses",
          {{{"name", huge}, {"state", {{"terminated", {{"exitCode", 1}, {"message", huge}}}}}}}}}}},
  };
  for (const json& pod : hostile) {
    const PodView view = read_pod(pod);
    EXPECT_LE(view.name.size(), 400u);
    EXPECT_LE(pod_start_blocker(pod).size(), 1500u);
    const auto death = pod_death(pod);
    if (death) {
      EXPECT_LE(death->reason.size(), 1500u);
    }
  }
}

}  // namespace
}  // namespace vc::kubernetes
