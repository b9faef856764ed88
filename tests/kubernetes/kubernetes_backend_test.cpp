// The Kubernetes backend plugin (vc-backend-kubernetes.so) against the real local cluster:
// every operation through the C ABI as the host calls it, checked from outside — the API read
// with curl, the pod's containers on the node's dockerd. Each test works in a namespace of its
// own, deleted at the end.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>

#include <gtest/gtest.h>

#include "backend_driver.h"
#include "cluster_view.h"
#include "command_runner.h"
#include "temp_directory.h"

namespace vc::test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kDebianImage = "debian:bookworm-slim";
constexpr const char* kDesktopImage = "mcp-virtual-computer-desktop:bookworm";

std::string plugin_path() { return std::string(VC_PLUGIN_DIR) + "/vc-backend-kubernetes.so"; }

class KubernetesBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto access = local_cluster(why);
    if (!access) {
      if (kubernetes_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    view_ = std::make_unique<ClusterView>(*access);
    static std::atomic<int> serial{0};
    name_space_ = "vc-test-k8s-" + std::to_string(getpid()) + "-" + std::to_string(++serial);
    view_->create_namespace(name_space_);
  }

  void TearDown() override {
    driver_.reset();
    if (view_) view_->delete_namespace(name_space_);
  }

  // The plugin with the test's namespace and the local cluster's kubeconfig.
  BackendDriver& backend(const Json& extra = Json::object()) {
    Json options = {{"kubeconfig", view_->access().kubeconfig},
                    {"namespace", name_space_},
                    {"image", kDebianImage},
                    {"image-pull-policy", "Never"}};
    options.update(extra);
    driver_ = std::make_unique<BackendDriver>(plugin_path(), options, state_.path());
    return *driver_;
  }

  static Json create_request(const std::string& id, bool network = true) {
    return {{"computer_id", id},         {"temporary", false},
            {"network_access", network}, {"desktop_environment", false},
            {"workspace_directory", "/workspace"}, {"shell", "/bin/bash"}};
  }
  static Json exec_request(const std::string& id, const std::string& command,
                           std::int64_t timeout_ms = 60000) {
    return {{"computer_id", id}, {"command", command}, {"timeout_ms", timeout_ms},
            {"output_limit", 10 * 1024 * 1024}};
  }
  std::string pod(const std::string& id) const { return "kilntainer-" + id; }
  std::string computer_container(const std::string& id) const {
    return view_->docker_container(name_space_, pod(id), "computer");
  }

  std::unique_ptr<ClusterView> view_;
  std::string name_space_;
  TempDirectory state_{"vc-k8s-test"};
  std::unique_ptr<BackendDriver> driver_;
};

TEST_F(KubernetesBackendTest, ValidateReportsTheClusterAndItsVersion) {
  const OpOutcome outcome = backend().run("validate", Json::object());
  ASSERT_TRUE(outcome.ok()) << outcome.describe();
  EXPECT_EQ(outcome.document["engine"], "kubernetes");
  EXPECT_EQ(outcome.document["engine_version"].get<std::string>().rfind("v1.", 0), 0u)
      << outcome.document.dump();
  EXPECT_EQ(outcome.document["address"], name_space_);
}

TEST_F(KubernetesBackendTest, ValidateNamesAMissingNamespace) {
  const OpOutcome outcome =
      backend({{"namespace", name_space_ + "-absent"}}).run("validate", Json::object());
  EXPECT_EQ(outcome.status, VC_E_UNAVAILABLE) << outcome.describe();
  EXPECT_NE(outcome.message.find("The namespace " + name_space_ + "-absent does not exist"),
            std::string::npos)
      << outcome.message;
}

TEST_F(KubernetesBackendTest, KubeconfigPointingAtNothingIsASentence) {
  const std::string kubeconfig = (state_.path() / "nothing.yaml").string();
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                               "    server: https://127.0.0.1:1\n"
                               "    insecure-skip-tls-verify: true\nusers:\n- name: u\n  user:\n"
                               "    token: x\ncontexts:\n- name: c\n  context:\n    cluster: c\n"
                               "    user: u\ncurrent-context: c\n";
  const OpOutcome outcome = backend({{"kubeconfig", kubeconfig}}).run("validate", Json::object());
  EXPECT_EQ(outcome.status, VC_E_UNAVAILABLE) << outcome.describe();
  EXPECT_NE(outcome.message.find("Cannot reach the Kubernetes API at https://127.0.0.1:1: "
                                 "Connection refused"),
            std::string::npos)
      << outcome.message;
}

TEST_F(KubernetesBackendTest, BadTokenIsRefusedWithASentence) {
  const std::string kubeconfig = (state_.path() / "badtoken.yaml").string();
  std::ofstream(kubeconfig) << "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n"
                               "    server: " + view_->access().server + "\n"
                               "    certificate-authority: " + view_->access().ca_file + "\n"
                               "users:\n- name: u\n  user:\n    token: not-the-token\n"
                               "contexts:\n- name: c\n  context:\n    cluster: c\n    user: u\n"
                               "current-context: c\n";
  const OpOutcome outcome = backend({{"kubeconfig", kubeconfig}}).run("validate", Json::object());
  EXPECT_EQ(outcome.status, VC_E_UNAVAILABLE) << outcome.describe();
  EXPECT_NE(outcome.message.find("(Unauthorized). Are the kubeconfig's credentials current?"),
            std::string::npos)
      << outcome.message;
}

TEST_F(KubernetesBackendTest, CommandsRunWithTheirOutputStdinAndExitCode) {
  auto& driver = backend();
  const OpOutcome created = driver.run("create", create_request("cmd"));
  ASSERT_TRUE(created.ok()) << created.describe();
  EXPECT_EQ(created.document["state"], "running");
  EXPECT_EQ(created.document["sandbox_id"], name_space_ + "/kilntainer-cmd");

  const OpOutcome ran = driver.run(
      "exec", exec_request("cmd", "pwd; echo out; echo err >&2; echo hi > note.txt; exit 3"));
  ASSERT_TRUE(ran.ok()) << ran.describe();
  EXPECT_EQ(ran.out, "/workspace\nout\n");
  EXPECT_EQ(ran.err, "err\n");
  EXPECT_EQ(ran.document["exit_code"], 3);
  EXPECT_EQ(ran.document["outcome"], "exited");
  // Seen from the node: the file is in the claim's workspace.
  EXPECT_EQ(view_->docker_sh(computer_container("cmd"), "cat /workspace/note.txt"), "hi\n");

  const std::string binary("a\0b\xff\ncd", 7);
  const OpOutcome piped = driver.run("exec", exec_request("cmd", "cat > in.bin; wc -c < in.bin"),
                                     60s, binary);
  ASSERT_TRUE(piped.ok()) << piped.describe();
  EXPECT_EQ(piped.out, "7\n");
  EXPECT_EQ(view_->docker_sh(computer_container("cmd"), "od -An -tx1 /workspace/in.bin | tr -d ' \\n'"),
            "610062ff0a6364");

  const OpOutcome no_input = driver.run("exec", exec_request("cmd", "cat; echo done"));
  ASSERT_TRUE(no_input.ok()) << no_input.describe();
  EXPECT_EQ(no_input.out, "done\n") << "a command without stdin reads end of input at once";

  Json argv_request = {{"computer_id", "cmd"}, {"argv", {"ls", "-d", "/definitely-missing"}},
                       {"timeout_ms", 60000}, {"output_limit", 0}};
  const OpOutcome argv = driver.run("exec", argv_request);
  ASSERT_TRUE(argv.ok()) << argv.describe();
  EXPECT_EQ(argv.document["exit_code"], 2);
  EXPECT_NE(argv.err.find("/definitely-missing"), std::string::npos);
}

// Commands go through one exec agent per pod, copied in by the first command; with
// --exec-agent off, each is an exec of its own and no agent runs.
TEST_F(KubernetesBackendTest, CommandsShareOneExecAgentPerPodUnlessItIsOff) {
  auto agents_in = [&](const std::string& id) {
    const auto lines = view_->processes(computer_container(id));
    return std::count_if(lines.begin(), lines.end(), [](const std::string& line) {
      return line.find("vc-exec-agent") != std::string::npos;
    });
  };
  {
    auto& driver = backend();
    ASSERT_TRUE(driver.run("create", create_request("agent")).ok());
    for (int i = 0; i < 5; ++i) {
      const OpOutcome ran = driver.run("exec", exec_request("agent", "echo " + std::to_string(i)));
      ASSERT_TRUE(ran.ok()) << ran.describe();
      EXPECT_EQ(ran.out, std::to_string(i) + "\n");
    }
    EXPECT_EQ(agents_in("agent"), 1) << "five commands, one agent";
    EXPECT_EQ(view_->docker_sh(computer_container("agent"),
                               "stat -c %a /.mcp-virtual-computer/vc-exec-agent"),
              "555\n");

    // A restart makes a new pod: the next command copies the agent in again.
    ASSERT_TRUE(driver.run("restart", {{"computer_id", "agent"}}).ok());
    const OpOutcome after = driver.run("exec", exec_request("agent", "echo again"));
    EXPECT_EQ(after.out, "again\n") << after.describe();
    EXPECT_EQ(agents_in("agent"), 1);
    driver_.reset();
  }
  auto& off = backend({{"exec-agent", "off"}});
  ASSERT_TRUE(off.run("create", create_request("noagent")).ok());
  const OpOutcome ran = off.run("exec", exec_request("noagent", "echo plain"));
  EXPECT_EQ(ran.out, "plain\n") << ran.describe();
  EXPECT_EQ(agents_in("noagent"), 0);
}

TEST_F(KubernetesBackendTest, TimeoutLimitAndCancelKillTheWholeCommand) {
  auto& driver = backend();
  ASSERT_TRUE(driver.run("create", create_request("kill")).ok());
  const std::string container = computer_container("kill");
  auto sleeping = [&](const std::string& marker) {
    const auto lines = view_->processes(container);
    return std::count_if(lines.begin(), lines.end(),
                         [&](const std::string& line) { return line.find(marker) != std::string::npos; });
  };

  const OpOutcome timed = driver.run("exec", exec_request("kill", "sleep 301 & sleep 302", 1500));
  ASSERT_TRUE(timed.ok()) << timed.describe();
  EXPECT_EQ(timed.document["outcome"], "timed_out");
  // Killed by a signal: SIGTERM then SIGKILL through the exec agent (143), SIGKILL through the
  // API's exec (137).
  const auto timed_code = timed.document["exit_code"].get<int>();
  EXPECT_TRUE(timed_code == 143 || timed_code == 137) << timed.document.dump();
  EXPECT_EQ(sleeping("sleep 301"), 0);
  EXPECT_EQ(sleeping("sleep 302"), 0);

  Json limited = exec_request("kill", "yes; sleep 303");
  limited["output_limit"] = 1000;
  const OpOutcome limit = driver.run("exec", limited);
  ASSERT_TRUE(limit.ok()) << limit.describe();
  EXPECT_EQ(limit.document["outcome"], "output_limit_exceeded");
  EXPECT_LE(limit.out.size(), 1000u);
  EXPECT_EQ(sleeping("sleep 303"), 0);

  auto pending = driver.start("exec", exec_request("kill", "sleep 304"));
  std::this_thread::sleep_for(1500ms);
  ASSERT_EQ(sleeping("sleep 304"), 1) << "the outside view sees the running command";
  driver.cancel(*pending);
  ASSERT_TRUE(pending->wait(30s));
  EXPECT_EQ(pending->outcome().status, VC_E_CANCELLED) << pending->outcome().describe();
  EXPECT_EQ(sleeping("sleep 304"), 0);

  const OpOutcome after = driver.run("exec", exec_request("kill", "echo alive"));
  EXPECT_EQ(after.out, "alive\n") << "the computer takes commands after a kill";
}

TEST_F(KubernetesBackendTest, RestartKeepsTheClaimResetWipesItRemoveTakesAll) {
  auto& driver = backend();
  ASSERT_TRUE(driver.run("create", create_request("life")).ok());
  ASSERT_TRUE(driver.run("exec", exec_request("life", "echo kept > /workspace/w; echo kept > "
                                                      "/root/r; echo lost > /etc/outside"))
                  .ok());
  const std::string first_uid =
      view_->get(name_space_, "pods", pod("life")).body["metadata"]["uid"];

  const OpOutcome restarted = driver.run("restart", {{"computer_id", "life"}});
  ASSERT_TRUE(restarted.ok()) << restarted.describe();
  EXPECT_NE(view_->get(name_space_, "pods", pod("life")).body["metadata"]["uid"], first_uid);
  const OpOutcome seen = driver.run(
      "exec", exec_request("life", "cat /workspace/w /root/r; cat /etc/outside 2>/dev/null || echo gone"));
  EXPECT_EQ(seen.out, "kept\nkept\ngone\n");

  const OpOutcome reset = driver.run("factory_reset", {{"computer_id", "life"}});
  ASSERT_TRUE(reset.ok()) << reset.describe();
  const OpOutcome wiped = driver.run(
      "exec", exec_request("life", "ls /workspace; test -f /root/.bashrc && echo seeded"));
  EXPECT_EQ(wiped.out, "seeded\n") << "the new claim is empty but seeded from the image";

  const OpOutcome removed = driver.run("remove", {{"computer_id", "life"}});
  ASSERT_TRUE(removed.ok()) << removed.describe();
  EXPECT_EQ(removed.document["removed"], true);
  EXPECT_EQ(view_->get(name_space_, "pods", pod("life")).status, 404);
  EXPECT_EQ(view_->get(name_space_, "persistentvolumeclaims", pod("life")).status, 404);
  EXPECT_EQ(driver.run("remove", {{"computer_id", "life"}}).document["removed"], false);
  // The name is free again at once.
  EXPECT_TRUE(driver.run("create", create_request("life")).ok());
}

// What the view's listener answers for `path` ("200" when the pod's noVNC page came through).
std::string http_status(const std::string& url) {
  const std::vector<std::string> argv = {"curl", "-s", "-o", "/dev/null", "-m", "20",
                                         "-w", "%{http_code}", url};
  return run_command(argv, std::chrono::seconds(30)).out;
}

// The view's origin (http://127.0.0.1:<port>) in a desktop_url.
std::string view_origin(const Json& url) {
  if (!url.is_string()) return "";
  const std::string text = url.get<std::string>();
  const auto path = text.find("/vnc.html");
  return path == std::string::npos ? "" : text.substr(0, path);
}

TEST_F(KubernetesBackendTest, DesktopSwitchesInPlaceAndKeepsItsModeAndViewAcrossARestart) {
  auto& driver = backend({{"image", kDesktopImage}});
  Json request = create_request("desk");
  request["desktop_environment"] = true;
  const OpOutcome created = driver.run("create", request);
  ASSERT_TRUE(created.ok()) << created.describe();
  EXPECT_EQ(created.document["desktop_environment"], true);
  const std::string origin = view_origin(created.document["desktop_url"]);
  ASSERT_FALSE(origin.empty()) << created.document.dump();
  // The noVNC page comes from the pod, through the plugin's listener and the port-forward.
  EXPECT_EQ(http_status(origin + "/vnc.html"), "200");
  const auto xfce = [&] {
    return view_->docker_sh(computer_container("desk"),
                            "pgrep -x xfce4-panel >/dev/null && echo on || echo off");
  };
  EXPECT_EQ(xfce(), "on\n");

  const OpOutcome off = driver.run("set_desktop_environment",
                                   {{"computer_id", "desk"}, {"enabled", false}});
  ASSERT_TRUE(off.ok()) << off.describe();
  EXPECT_EQ(off.document["desktop_environment"], false);
  EXPECT_TRUE(off.document["desktop_url"].is_null()) << "no view is offered with Xfce off";
  EXPECT_EQ(xfce(), "off\n");
  const Json labels = view_->get(name_space_, "pods", pod("desk")).body["metadata"]["labels"];
  EXPECT_EQ(labels["mcp-virtual-computer.desktop"], "false");

  // A restart makes a new pod from the image: it comes back with Xfce off.
  const OpOutcome restarted = driver.run("restart", {{"computer_id", "desk"}});
  ASSERT_TRUE(restarted.ok()) << restarted.describe();
  EXPECT_EQ(restarted.document["desktop_environment"], false);
  EXPECT_EQ(xfce(), "off\n");
  const OpOutcome read = driver.run("get_desktop_environment", {{"computer_id", "desk"}});
  ASSERT_TRUE(read.ok()) << read.describe();
  EXPECT_EQ(read.document["enabled"], false);
  EXPECT_EQ(http_status(origin + "/vnc.html"), "200") << "the listener relays to the new pod";

  // On again: the view keeps its address across the restart.
  const OpOutcome on = driver.run("set_desktop_environment",
                                  {{"computer_id", "desk"}, {"enabled", true}});
  ASSERT_TRUE(on.ok()) << on.describe();
  EXPECT_EQ(xfce(), "on\n");
  EXPECT_EQ(view_origin(on.document["desktop_url"]), origin);

  // Removing the computer closes its listener.
  ASSERT_TRUE(driver.run("remove", {{"computer_id", "desk"}}).ok());
  EXPECT_EQ(http_status(origin + "/vnc.html"), "000");
}

TEST_F(KubernetesBackendTest, HeadlessComputerHasNoDesktopAndRefusesXfce) {
  auto& driver = backend();
  ASSERT_TRUE(driver.run("create", create_request("plain")).ok());
  const OpOutcome read = driver.run("get_desktop_environment", {{"computer_id", "plain"}});
  ASSERT_TRUE(read.ok()) << read.describe();
  EXPECT_EQ(read.document["enabled"], false);
  EXPECT_TRUE(read.document["desktop_url"].is_null()) << read.document.dump();
  const OpOutcome on = driver.run("set_desktop_environment",
                                  {{"computer_id", "plain"}, {"enabled", true}});
  EXPECT_EQ(on.status, VC_E_UNSUPPORTED) << on.describe();
  EXPECT_NE(on.message.find("cannot start Xfce in place"), std::string::npos) << on.message;
}

TEST_F(KubernetesBackendTest, AttachMakesAGonePodAgainAndListShowsEveryComputer) {
  auto& driver = backend();
  ASSERT_TRUE(driver.run("create", create_request("att")).ok());
  ASSERT_TRUE(driver.run("create", create_request("other", false)).ok());
  ASSERT_TRUE(driver.run("exec", exec_request("att", "echo persisted > /workspace/p")).ok());
  view_->delete_pod(name_space_, pod("att"));

  const OpOutcome listed = driver.run("list", Json::object());
  ASSERT_TRUE(listed.ok()) << listed.describe();
  std::map<std::string, Json> by_id;
  for (const Json& computer : listed.document["computers"]) by_id[computer["computer_id"]] = computer;
  ASSERT_EQ(by_id.size(), 2u) << listed.document.dump();
  EXPECT_EQ(by_id["other"]["network_access"], false);
  EXPECT_EQ(by_id["other"]["state"], "running");

  const OpOutcome attached = driver.run(
      "attach", {{"computer_id", "att"}, {"network_access", true}, {"desktop_environment", false},
                 {"shell", "/bin/bash"}});
  ASSERT_TRUE(attached.ok()) << attached.describe();
  const OpOutcome read_back = driver.run("exec", exec_request("att", "cat /workspace/p"));
  EXPECT_EQ(read_back.out, "persisted\n") << read_back.describe();

  const OpOutcome missing = driver.run(
      "attach", {{"computer_id", "never"}, {"network_access", true}, {"desktop_environment", false},
                 {"shell", "/bin/bash"}});
  EXPECT_EQ(missing.status, VC_E_NOT_FOUND) << missing.describe();
}

TEST_F(KubernetesBackendTest, DeathIsReportedWhenThePodIsDeletedBehindOurBackNotOnRestart) {
  auto& driver = backend();
  ASSERT_TRUE(driver.run("create", create_request("mortal")).ok());
  auto death = driver.start("wait_for_death", {{"computer_id", "mortal"}});
  ASSERT_TRUE(driver.run("restart", {{"computer_id", "mortal"}}).ok());
  EXPECT_FALSE(death->wait(3s)) << "a restart asked of the backend is not a death: "
                                << death->outcome().describe();
  view_->delete_pod(name_space_, pod("mortal"));
  ASSERT_TRUE(death->wait(60s));
  EXPECT_TRUE(death->outcome().ok()) << death->outcome().describe();
  EXPECT_EQ(death->outcome().document["reason"], "the pod was deleted");
}

TEST_F(KubernetesBackendTest, NetworkOffIsEnforcedInThePodAndCannotBeUndoneFromInside) {
  auto& driver = backend({{"image", kDesktopImage}});
  ASSERT_TRUE(driver.run("create", create_request("net", false)).ok());
  EXPECT_EQ(view_->get(name_space_, "networkpolicies", "kilntainer-net.network-off").status, 200);
  // A listener the test starts in a pod-free container on the node's bridge.
  const auto listener = run_command({"docker", "run", "-d", "--rm", "--label", "vc-test=1",
                                     "vc-test-busybox:latest", "sh", "-c",
                                     "while true; do echo hello | nc -l -p 8080; done"});
  ASSERT_TRUE(listener.ok()) << listener.describe({});
  const std::string listener_id = trim_trailing(listener.out);
  const std::string address = trim_trailing(
      run_command({"docker", "inspect", "-f", "{{.NetworkSettings.IPAddress}}", listener_id}).out);
  const std::string probe = "timeout 5 bash -c 'cat < /dev/tcp/" + address + "/8080' && echo reached || echo blocked";

  EXPECT_EQ(driver.run("exec", exec_request("net", probe)).out, "blocked\n");
  const OpOutcome flush = driver.run("exec", exec_request("net", "iptables -F OUTPUT; ip6tables -F OUTPUT; echo $?"));
  EXPECT_EQ(driver.run("exec", exec_request("net", probe)).out, "blocked\n")
      << "root in the computer cannot lift the rules: " << flush.out << flush.err;
  const std::string guard = view_->docker_container(name_space_, pod("net"), "network-guard");
  EXPECT_NE(view_->docker_sh(guard, "iptables -S OUTPUT"), "");
  EXPECT_NE(view_->docker_sh(guard, "iptables -S OUTPUT").find("VC-EGRESS"), std::string::npos);
  EXPECT_NE(view_->docker_sh(guard, "ip6tables -S OUTPUT").find("VC-EGRESS"), std::string::npos);

  ASSERT_TRUE(driver.run("set_network_access", {{"computer_id", "net"}, {"enabled", true}}).ok());
  EXPECT_EQ(view_->get(name_space_, "networkpolicies", "kilntainer-net.network-off").status, 404);
  EXPECT_EQ(driver.run("exec", exec_request("net", probe)).out, "hello\nreached\n");

  ASSERT_TRUE(driver.run("set_network_access", {{"computer_id", "net"}, {"enabled", false}}).ok());
  ASSERT_TRUE(driver.run("restart", {{"computer_id", "net"}}).ok());
  EXPECT_EQ(driver.run("exec", exec_request("net", probe)).out, "blocked\n")
      << "off survives a restart";
  run_command({"docker", "rm", "-f", listener_id});
}

TEST_F(KubernetesBackendTest, PodsThatCannotStartAreReportedAtOnceAndLeaveNothing) {
  auto& driver = backend({{"memory", "900g"}});
  const auto started = std::chrono::steady_clock::now();
  const OpOutcome big = driver.run("create", create_request("big"));
  EXPECT_EQ(big.status, VC_E_FAILED) << big.describe();
  EXPECT_NE(big.message.find("cannot be scheduled: 0/1 nodes are available"), std::string::npos)
      << big.message;
  EXPECT_LT(std::chrono::steady_clock::now() - started, 60s) << "reported, not waited out";
  EXPECT_EQ(view_->get(name_space_, "pods", pod("big")).status, 404);
  EXPECT_EQ(view_->get(name_space_, "persistentvolumeclaims", pod("big")).status, 404);

  auto& missing_image = backend({{"image", "vc-missing-image:1"}});
  const OpOutcome missing = missing_image.run("create", create_request("noimg"));
  EXPECT_EQ(missing.status, VC_E_FAILED) << missing.describe();
  EXPECT_NE(missing.message.find("\"vc-missing-image:1\" cannot be pulled (ErrImageNeverPull"),
            std::string::npos)
      << missing.message;
}

}  // namespace
}  // namespace vc::test
