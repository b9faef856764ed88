// Unit tests of computer_flows over an in-memory cluster (FakeCluster): which objects each flow
// makes, keeps and removes, what it refuses, and what it reports. Pods become Running on
// creation unless a test gives them another status. What the flows do on a real cluster is
// tested in tests/integration (label "kubernetes").
#include "computer_flows.h"

#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

using nlohmann::json;

json fixture_status(const std::string& name) {
  std::ifstream file(std::string(VC_KUBERNETES_FIXTURES) + "/pods/" + name + ".json");
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str())["status"];
}

json running_status() {
  return {{"phase", "Running"},
          {"containerStatuses",
           {{{"name", "computer"}, {"ready", true}, {"state", {{"running", json::object()}}}},
            {{"name", "network-guard"}, {"ready", true},
             {"state", {{"running", json::object()}}}}}}};
}

// The value of `variable` in the pod's computer container ("" when unset).
std::string pod_env(const json& pod, const std::string& variable) {
  for (const json& container : pod["spec"]["containers"]) {
    if (container.value("name", "") != kComputerContainer || !container.contains("env")) continue;
    for (const json& entry : container["env"]) {
      if (entry.value("name", "") == variable) return entry.value("value", "");
    }
  }
  return "";
}

class FakeCluster : public ClusterCalls {
 public:
  std::map<std::pair<ObjectKind, std::string>, json> objects;
  std::vector<std::string> execs;  // "pod/container: argv..." (but vc-desktop's)
  // The desktop supervisor (vc-desktop) of each pod: its calls, and Xfce on or off.
  std::vector<std::string> desktop_execs;
  std::map<std::string, bool> xfce_on;
  bool desktop_goes_live = true;  // false: "set" answers exit 3, not live in time
  json next_pod_status = running_status();
  int pods_created = 0;

  const std::string& name_space() const override { return name_space_; }
  ApiExpected<json> server_version(sdk::CancelScope&) override {
    return json{{"gitVersion", "v1.20.2"}};
  }
  ApiExpected<json> get(ObjectKind kind, const std::string& name, sdk::CancelScope&) override {
    auto found = objects.find({kind, name});
    if (found == objects.end()) return not_found(name);
    return found->second;
  }
  ApiExpected<std::vector<json>> list(ObjectKind kind, const std::string& selector,
                                      sdk::CancelScope&) override {
    const auto equals = selector.find('=');
    const std::string key = selector.substr(0, equals);
    const std::string value = selector.substr(equals + 1);
    std::vector<json> items;
    for (const auto& [id, object] : objects) {
      if (id.first == kind && object["metadata"]["labels"].value(key, "") == value) {
        items.push_back(object);
      }
    }
    return items;
  }
  ApiExpected<json> create(ObjectKind kind, const json& object, sdk::CancelScope&) override {
    const std::string name = object["metadata"]["name"];
    if (objects.contains({kind, name})) {
      return ApiError{ApiErrorKind::conflict, 409, "AlreadyExists", name + " already exists"};
    }
    json stored = object;
    stored["metadata"]["uid"] = "uid-" + std::to_string(++serial_);
    stored["metadata"]["creationTimestamp"] = "2026-12-06T20:00:00Z";
    if (kind == ObjectKind::pod) {
      ++pods_created;
      stored["spec"]["nodeName"] = "node-1";
      stored["status"] = next_pod_status;
    }
    objects[{kind, name}] = stored;
    return stored;
  }
  ApiExpected<json> merge_patch(ObjectKind kind, const std::string& name, const json& patch,
                                sdk::CancelScope&) override {
    auto found = objects.find({kind, name});
    if (found == objects.end()) return not_found(name);
    found->second.merge_patch(patch);
    return found->second;
  }
  ApiExpected<bool> remove(ObjectKind kind, const std::string& name, std::optional<std::int64_t>,
                           sdk::CancelScope&) override {
    return objects.erase({kind, name}) > 0;
  }
  ApiExpected<json> watch_pod(const std::string& name, std::chrono::milliseconds,
                              const std::function<bool(const json*)>& on_pod,
                              sdk::CancelScope&) override {
    auto found = objects.find({ObjectKind::pod, name});
    const json* pod = found == objects.end() ? nullptr : &found->second;
    if (!on_pod(pod)) return ApiError{ApiErrorKind::timeout, 0, "", "deadline"};
    return pod ? *pod : json();
  }
  ApiExpected<ExecResult> exec(const ExecCall& call, sdk::CancelScope&) override {
    std::string line = call.pod + "/" + call.container + ":";
    for (const auto& word : call.argv) line += " " + word;
    ExecResult result;
    result.exit_code = 0;
    if (!call.argv.empty() && call.argv[0] == kDesktopSupervisorCommand) {
      desktop_execs.push_back(line);
      return supervisor(call, result);
    }
    execs.push_back(line);
    return result;
  }

  bool has(ObjectKind kind, const std::string& name) const {
    return objects.contains({kind, name});
  }

 private:
  // vc-desktop wait|set on|off --wait N: the state as JSON on stdout.
  ExecResult supervisor(const ExecCall& call, ExecResult result) {
    bool& on = xfce_on[call.pod];
    bool live = true;
    if (call.argv.size() > 2 && call.argv[1] == "set") {
      on = call.argv[2] == "on";
      live = desktop_goes_live;
      if (!live) result.exit_code = 3;
    }
    result.stdout_bytes = json{{"wanted", on}, {"enabled", on && live}, {"live", live}}.dump();
    return result;
  }
  static ApiError not_found(const std::string& name) {
    return ApiError{ApiErrorKind::not_found, 404, "NotFound", name + " not found"};
  }
  std::string name_space_ = "computers";
  int serial_ = 0;
};

class ComputerFlowsTest : public ::testing::Test {
 protected:
  ComputerFlowsTest() : log_(nullptr), flows_(cluster_, options_, log_) {
    options_.image = "";
    options_.desktop_image = "desktop:1";
  }

  static sdk::CreateRequest create_request(const std::string& id, bool network = true) {
    sdk::CreateRequest request;
    request.computer_id = id;
    request.network_access = network;
    request.workspace_directory = "/workspace";
    request.shell = "/bin/bash";
    return request;
  }

  FakeCluster cluster_;
  KubernetesOptions options_;
  sdk::HostLog log_;
  sdk::CancelScope scope_;
  ComputerFlows flows_;
};

TEST_F(ComputerFlowsTest, CreateMakesClaimAndRunningPodAndReportsThem) {
  const auto result = flows_.create(create_request("alpha"), scope_);
  ASSERT_TRUE(result.succeeded()) << result.message;
  EXPECT_TRUE(cluster_.has(ObjectKind::persistent_volume_claim, "kilntainer-alpha"));
  EXPECT_TRUE(cluster_.has(ObjectKind::pod, "kilntainer-alpha"));
  EXPECT_FALSE(cluster_.has(ObjectKind::network_policy, "kilntainer-alpha.network-off"));
  EXPECT_EQ(result.document["computer_id"], "alpha");
  EXPECT_EQ(result.document["sandbox_id"], "computers/kilntainer-alpha");
  EXPECT_EQ(result.document["state"], "running");
  EXPECT_EQ(result.document["image"], "desktop:1");
  EXPECT_EQ(result.document["network_access"], true);
  EXPECT_NE(result.document.value("persistence", "").find("Only /workspace and the home "
                                                          "directories (/root, /home/computer)"),
            std::string::npos)
      << result.document.dump();
  EXPECT_FALSE(result.document.contains("network_enforcement")) << "the network is on";
  EXPECT_TRUE(cluster_.execs.empty());
  // A desktop computer is handed over once its desktop is live.
  EXPECT_EQ(cluster_.desktop_execs,
            std::vector<std::string>{"kilntainer-alpha/computer: /usr/local/bin/vc-desktop wait "
                                     "--wait 15"});
}

TEST_F(ComputerFlowsTest, CreateWithNetworkOffRecordsThePolicyAndBlocksInThePod) {
  const auto result = flows_.create(create_request("beta", false), scope_);
  ASSERT_TRUE(result.succeeded()) << result.message;
  EXPECT_TRUE(cluster_.has(ObjectKind::network_policy, "kilntainer-beta.network-off"));
  ASSERT_EQ(cluster_.execs.size(), 1u);
  EXPECT_EQ(cluster_.execs[0],
            "kilntainer-beta/network-guard: /usr/local/lib/mcp-virtual-computer/egress-firewall "
            "block");
  EXPECT_EQ(result.document["network_access"], false);
  EXPECT_NE(result.document.value("network_enforcement", "").find("network-guard"),
            std::string::npos)
      << result.document.dump();
}

TEST_F(ComputerFlowsTest, CreateRefusesATakenNameAndAForeignObject) {
  ASSERT_TRUE(flows_.create(create_request("gamma"), scope_).succeeded());
  auto again = flows_.create(create_request("gamma"), scope_);
  EXPECT_EQ(again.status, VC_E_ALREADY_EXISTS);
  EXPECT_EQ(again.message, "The computer gamma exists already in namespace computers.");

  cluster_.objects[{ObjectKind::persistent_volume_claim, "kilntainer-delta"}] =
      json{{"metadata", {{"name", "kilntainer-delta"}, {"labels", json::object()}}}};
  auto foreign = flows_.create(create_request("delta"), scope_);
  EXPECT_EQ(foreign.status, VC_E_ALREADY_EXISTS);
  EXPECT_NE(foreign.message.find("by an object this backend did not make"), std::string::npos);
  EXPECT_FALSE(cluster_.has(ObjectKind::pod, "kilntainer-delta"));
}

TEST_F(ComputerFlowsTest, AdoptExistingAttaches) {
  ASSERT_TRUE(flows_.create(create_request("adopt"), scope_).succeeded());
  auto request = create_request("adopt");
  request.adopt_existing = true;
  const auto adopted = flows_.create(request, scope_);
  ASSERT_TRUE(adopted.succeeded()) << adopted.message;
  EXPECT_EQ(cluster_.pods_created, 1);
}

TEST_F(ComputerFlowsTest, UnschedulablePodFailsCreateWithTheSchedulersWordsAndLeavesNothing) {
  cluster_.next_pod_status = fixture_status("unschedulable");
  const auto result = flows_.create(create_request("big", false), scope_);
  EXPECT_EQ(result.status, VC_E_FAILED);
  EXPECT_NE(result.message.find("cannot be scheduled: 0/1 nodes are available: 1 Insufficient "
                                "memory."),
            std::string::npos)
      << result.message;
  EXPECT_TRUE(cluster_.objects.empty()) << "a failed create removes what it made";
}

TEST_F(ComputerFlowsTest, AttachMakesThePodAgainFromTheClaimWithItsSettings) {
  auto request = create_request("epsilon");
  request.temporary = true;
  request.workspace_directory = "/work";
  ASSERT_TRUE(flows_.create(request, scope_).succeeded());
  cluster_.objects.erase({ObjectKind::pod, "kilntainer-epsilon"});

  sdk::AttachRequest attach;
  attach.computer_id = "epsilon";
  attach.network_access = true;
  const auto result = flows_.attach(attach, scope_);
  ASSERT_TRUE(result.succeeded()) << result.message;
  EXPECT_EQ(result.document["temporary"], true);
  const json& pod = cluster_.objects.at({ObjectKind::pod, "kilntainer-epsilon"});
  EXPECT_EQ(pod["metadata"]["annotations"]["mcp-virtual-computer.workspace"], "/work");
  EXPECT_EQ(cluster_.pods_created, 2);
}

TEST_F(ComputerFlowsTest, AttachOfNothingIsNotFound) {
  sdk::AttachRequest attach;
  attach.computer_id = "nobody";
  const auto result = flows_.attach(attach, scope_);
  EXPECT_EQ(result.status, VC_E_NOT_FOUND);
  EXPECT_EQ(result.message, "There is no computer nobody in namespace computers.");
}

TEST_F(ComputerFlowsTest, RestartMakesThePodAgainOnTheSameClaimUnscheduled) {
  ASSERT_TRUE(flows_.create(create_request("zeta", false), scope_).succeeded());
  const std::string claim_uid =
      cluster_.objects.at({ObjectKind::persistent_volume_claim, "kilntainer-zeta"})["metadata"]["uid"];
  const auto result = flows_.restart("zeta", scope_);
  ASSERT_TRUE(result.succeeded()) << result.message;
  EXPECT_EQ(cluster_.pods_created, 2);
  EXPECT_EQ(cluster_.objects.at({ObjectKind::persistent_volume_claim, "kilntainer-zeta"})["metadata"]["uid"],
            claim_uid);
  EXPECT_EQ(result.document["network_access"], false);
  EXPECT_EQ(cluster_.execs.size(), 2u) << "the firewall is applied again in the new pod";
}

TEST_F(ComputerFlowsTest, FactoryResetMakesANewClaim) {
  ASSERT_TRUE(flows_.create(create_request("eta"), scope_).succeeded());
  const std::string claim_uid =
      cluster_.objects.at({ObjectKind::persistent_volume_claim, "kilntainer-eta"})["metadata"]["uid"];
  const auto result = flows_.factory_reset("eta", scope_);
  ASSERT_TRUE(result.succeeded()) << result.message;
  EXPECT_NE(cluster_.objects.at({ObjectKind::persistent_volume_claim, "kilntainer-eta"})["metadata"]["uid"],
            claim_uid);
  EXPECT_EQ(result.document["state"], "running");
}

TEST_F(ComputerFlowsTest, RemoveIsIdempotentAndTakesEverything) {
  ASSERT_TRUE(flows_.create(create_request("theta", false), scope_).succeeded());
  auto first = flows_.remove("theta", scope_);
  ASSERT_TRUE(first.succeeded()) << first.message;
  EXPECT_EQ(first.document["removed"], true);
  EXPECT_TRUE(cluster_.objects.empty());
  auto second = flows_.remove("theta", scope_);
  ASSERT_TRUE(second.succeeded());
  EXPECT_EQ(second.document["removed"], false);
}

TEST_F(ComputerFlowsTest, ListReportsPodsAndClaimsWithoutPodsAsStopped) {
  ASSERT_TRUE(flows_.create(create_request("one"), scope_).succeeded());
  ASSERT_TRUE(flows_.create(create_request("two", false), scope_).succeeded());
  cluster_.objects.erase({ObjectKind::pod, "kilntainer-two"});
  const auto result = flows_.list(scope_);
  ASSERT_TRUE(result.succeeded()) << result.message;
  const json& computers = result.document["computers"];
  ASSERT_EQ(computers.size(), 2u);
  std::map<std::string, json> by_id;
  for (const json& computer : computers) by_id[computer["computer_id"]] = computer;
  EXPECT_EQ(by_id["one"]["state"], "running");
  EXPECT_EQ(by_id["one"]["network_access"], true);
  EXPECT_EQ(by_id["two"]["state"], "stopped");
  EXPECT_EQ(by_id["two"]["network_access"], false);
}

TEST_F(ComputerFlowsTest, NetworkSwitchKeepsPolicyAndFirewallTogether) {
  ASSERT_TRUE(flows_.create(create_request("iota"), scope_).succeeded());
  ASSERT_TRUE(flows_.set_network_access("iota", false, scope_).succeeded());
  EXPECT_TRUE(cluster_.has(ObjectKind::network_policy, "kilntainer-iota.network-off"));
  ASSERT_TRUE(flows_.set_network_access("iota", true, scope_).succeeded());
  EXPECT_FALSE(cluster_.has(ObjectKind::network_policy, "kilntainer-iota.network-off"));
  ASSERT_EQ(cluster_.execs.size(), 2u);
  EXPECT_NE(cluster_.execs[0].find("egress-firewall block"), std::string::npos);
  EXPECT_NE(cluster_.execs[1].find("egress-firewall allow"), std::string::npos);
  EXPECT_EQ(flows_.set_network_access("nobody", false, scope_).status, VC_E_NOT_FOUND);
}

TEST_F(ComputerFlowsTest, ApiFailuresKeepTheirSentenceAndGetAStatus) {
  const ApiError refused{ApiErrorKind::unreachable, 0, "",
                         "Cannot reach the Kubernetes API at https://10.0.0.1:6443: connection refused."};
  const auto failure = failure_of(refused);
  EXPECT_EQ(failure.status, VC_E_UNAVAILABLE);
  EXPECT_EQ(failure.message, refused.message);
  EXPECT_EQ(failure.details["code"], "kubernetes.unreachable");
  EXPECT_EQ(failure.details["retryable"], true);
  EXPECT_EQ(failure_of({ApiErrorKind::forbidden, 403, "Forbidden", "x"}).status, VC_E_PERMISSION);
}

TEST_F(ComputerFlowsTest, DesktopSwitchRunsTheSupervisorAndRecordsTheModeForTheNextPod) {
  ASSERT_TRUE(flows_.create(create_request("desk"), scope_).succeeded());
  EXPECT_EQ(pod_env(cluster_.objects.at({ObjectKind::pod, "kilntainer-desk"}), kDesktopModeEnv),
            "false");
  cluster_.desktop_execs.clear();

  const auto on = flows_.set_desktop_environment("desk", true, scope_);
  ASSERT_TRUE(on.succeeded()) << on.message;
  EXPECT_EQ(on.document["desktop_environment"], true);
  EXPECT_EQ(cluster_.desktop_execs,
            std::vector<std::string>{"kilntainer-desk/computer: /usr/local/bin/vc-desktop set on "
                                     "--wait 15"});
  for (ObjectKind kind : {ObjectKind::pod, ObjectKind::persistent_volume_claim}) {
    EXPECT_EQ(cluster_.objects.at({kind, "kilntainer-desk"})["metadata"]["labels"]
                                 ["mcp-virtual-computer.desktop"],
              "true");
  }
  const auto read = flows_.get_desktop_environment("desk", scope_);
  ASSERT_TRUE(read.succeeded()) << read.message;
  EXPECT_EQ(read.document["enabled"], true);
  EXPECT_TRUE(read.document["desktop_url"].is_null()) << "no views were given";

  // A restart makes a pod from the image: it starts in the recorded mode.
  ASSERT_TRUE(flows_.restart("desk", scope_).succeeded());
  EXPECT_EQ(pod_env(cluster_.objects.at({ObjectKind::pod, "kilntainer-desk"}), kDesktopModeEnv),
            "true");
}

TEST_F(ComputerFlowsTest, DesktopThatIsNotLiveInTimeFailsTheSwitchAndLeavesTheComputer) {
  ASSERT_TRUE(flows_.create(create_request("slow"), scope_).succeeded());
  cluster_.desktop_goes_live = false;
  const auto on = flows_.set_desktop_environment("slow", true, scope_);
  ASSERT_FALSE(on.succeeded());
  EXPECT_EQ(on.status, VC_E_TIMEOUT);
  EXPECT_EQ(on.message,
            "Xfce did not start within 15 seconds. The computer itself is still running and was "
            "not replaced.");
  EXPECT_EQ(cluster_.pods_created, 1);
}

TEST_F(ComputerFlowsTest, HeadlessComputerRefusesXfceButIsOffAlready) {
  options_.image = "debian:bookworm-slim";
  ASSERT_TRUE(flows_.create(create_request("plain"), scope_).succeeded());
  EXPECT_TRUE(cluster_.desktop_execs.empty()) << "a headless pod has no supervisor to ask";
  const auto on = flows_.set_desktop_environment("plain", true, scope_);
  EXPECT_EQ(on.status, VC_E_UNSUPPORTED);
  EXPECT_NE(on.message.find("cannot start Xfce in place"), std::string::npos) << on.message;
  const auto off = flows_.set_desktop_environment("plain", false, scope_);
  ASSERT_TRUE(off.succeeded()) << off.message;
  EXPECT_EQ(off.document["desktop_environment"], false);
  const auto read = flows_.get_desktop_environment("plain", scope_);
  ASSERT_TRUE(read.succeeded());
  EXPECT_EQ(read.document, (json{{"enabled", false}, {"desktop_url", nullptr}}));
  EXPECT_TRUE(cluster_.desktop_execs.empty());
}

TEST_F(ComputerFlowsTest, DesktopOfAMissingComputerIsNotFound) {
  EXPECT_EQ(flows_.set_desktop_environment("nobody", true, scope_).status, VC_E_NOT_FOUND);
  EXPECT_EQ(flows_.get_desktop_environment("nobody", scope_).status, VC_E_NOT_FOUND);
}

TEST(DesktopViewUrl, CarriesThePortAndTheSecretInTheFragment) {
  EXPECT_EQ(desktop_view_url(40123, "abc"),
            "http://127.0.0.1:40123/vnc.html#autoconnect=1&resize=scale&reconnect=1&"
            "path=websockify%3Ftoken%3Dabc");
}

TEST(FreshPod, DropsWhatTheServerFilledIn) {
  const json pod = {{"metadata",
                     {{"name", "kilntainer-a"}, {"uid", "u"}, {"resourceVersion", "7"},
                      {"labels", {{"kilntainers", "true"}}}}},
                    {"spec", {{"nodeName", "node-1"}, {"containers", json::array()}}},
                    {"status", {{"phase", "Running"}}}};
  const json fresh = fresh_pod_from(pod);
  EXPECT_EQ(fresh["metadata"], (json{{"name", "kilntainer-a"}, {"labels", {{"kilntainers", "true"}}}}));
  EXPECT_FALSE(fresh["spec"].contains("nodeName"));
  EXPECT_FALSE(fresh.contains("status"));
  EXPECT_EQ(generate_desktop_token().size(), 48u);
  EXPECT_NE(generate_desktop_token(), generate_desktop_token());
}

}  // namespace
}  // namespace vc::kubernetes
