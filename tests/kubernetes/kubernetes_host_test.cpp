// kubernetes_host_test.cpp — the real host binary with `--backend kubernetes`, driven over stdio
// as an agent drives it (MCP tools/call), against the real local cluster. What the tools say is
// checked from outside: the cluster's API read with curl (ClusterView) and the pod's container
// on the node's dockerd (`docker exec`, found by the kubelet's io.kubernetes.pod.name label).
//
// Each test works in a namespace of its own ("vc-test-host-<pid>-<n>"), created through the API
// and deleted at the end with everything in it. The ApiServerOutageTest cases kill the local
// cluster's API server and start it again with scripts/engines/kubernetes-up.sh; the cluster's
// suites take turns (ctest RESOURCE_LOCK kubernetes_cluster) for that reason.
// Single-threaded: gtest runs the tests one at a time.
#include <openssl/evp.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "cluster_view.h"
#include "command_runner.h"
#include "host_environment.h"
#include "mcp_client.h"
#include "temp_directory.h"
#include "test_names.h"

namespace vc::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kDebianImage = "debian:bookworm-slim";
// An image no node has; with the pull policy Never the kubelet refuses it at once.
constexpr const char* kMissingImage = "vc-test-does-not-exist:1";
// Where scripts/engines/kubernetes-up.sh serves the local cluster's API.
constexpr const char* kLocalApiServer = "https://127.0.0.1:6443";

// --- bytes: SHA-256 and base64 through OpenSSL -------------------------------------------------

std::string sha256_hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("EVP_Digest failed");
  }
  static const char* const kHex = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 0xF];
  }
  return hex;
}

std::string base64_encode(const std::string& bytes) {
  std::string text(4 * ((bytes.size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  text.resize(static_cast<std::size_t>(written));
  return text;
}

// Decodes unwrapped base64 (whitespace around it is dropped); throws on anything else.
std::string base64_decode(std::string text) {
  text.erase(
      std::remove_if(text.begin(), text.end(),
                     [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }),
      text.end());
  std::string bytes(3 * (text.size() / 4), '\0');
  const int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                      reinterpret_cast<const unsigned char*>(text.data()),
                                      static_cast<int>(text.size()));
  if (decoded < 0 || text.size() % 4 != 0)
    throw std::runtime_error("not base64: " + text.substr(0, 80));
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  bytes.resize(static_cast<std::size_t>(decoded) - padding);
  return bytes;
}

std::string random_bytes(std::size_t count, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> byte(0, 255);
  std::string bytes(count, '\0');
  for (char& c : bytes) c = static_cast<char>(byte(generator));
  return bytes;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- the fixture -------------------------------------------------------------------------------

struct HostSetup {
  std::string computer_id;  // default: the test's own
  std::string name_space;   // default: the test's namespace
  std::string kubeconfig;   // default: the local cluster's
  std::string image = kDebianImage;
  std::vector<std::string> extra_args;  // last, so they win
};

class KubernetesHostTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto access = local_cluster(why);
    if (!access) {
      if (kubernetes_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    view_ = std::make_unique<ClusterView>(*access);
    name_space_ = unique_name("vc-test-host");
    create_namespace(name_space_);
    computer_id_ = unique_name("h");
  }

  void TearDown() override {
    hosts_.clear();  // stdin EOF, then a bounded wait and SIGKILL (McpClient's destructor)
    if (!view_) return;
    for (const auto& name : namespaces_) view_->delete_namespace(name);
  }

  void create_namespace(const std::string& name) {
    view_->create_namespace(name);
    namespaces_.push_back(name);
  }

  std::string pod_of(const std::string& id) const { return "kilntainer-" + id; }
  std::string pod() const { return pod_of(computer_id_); }

  // The host over stdio with --backend kubernetes, its MCP session initialised.
  McpClient& start_host(HostSetup setup = {}) {
    if (setup.computer_id.empty()) setup.computer_id = computer_id_;
    if (setup.name_space.empty()) setup.name_space = name_space_;
    if (setup.kubeconfig.empty()) setup.kubeconfig = view_->access().kubeconfig;
    McpClientOptions client;
    client.binary = VC_HOST_BINARY;
    client.args = {"--backend", "kubernetes", "--plugin-dir", VC_PLUGIN_DIR,
                   "--state-dir", state_.path().string(), "--log-level", "debug",
                   "--kubeconfig", setup.kubeconfig, "--namespace", setup.name_space,
                   "--image", setup.image, "--image-pull-policy", "Never"};
    client.args.insert(client.args.end(), setup.extra_args.begin(), setup.extra_args.end());
    client.environment =
        host_environment({{"COMPUTER_ID", setup.computer_id}, {"KUBECONFIG", std::nullopt}});
    client.default_timeout = 180s;
    hosts_.push_back(std::make_unique<McpClient>(client));
    hosts_.back()->initialize();
    return *hosts_.back();
  }

  // Closes the host with stdin EOF and expects a clean exit (sanitizers report through it).
  void close_host(McpClient& host) {
    const ExitStatus status = host.close(30s);
    EXPECT_TRUE(status.exited && status.code == 0)
        << "the host did not exit cleanly after stdin EOF: " << status.describe() << "\n"
        << host.diagnostics();
  }

  // The payload of a tool call that must succeed.
  static Json ok(McpClient& host, const std::string& tool, const Json& arguments) {
    const Json result = host.call_tool(tool, arguments, 180s);
    EXPECT_FALSE(McpClient::is_error(result)) << tool << " " << arguments.dump().substr(0, 300)
                                              << " failed: " << result.dump().substr(0, 1500);
    return McpClient::payload_of(result);
  }
  // The error sentence of a tool call that must fail.
  static std::string fails(McpClient& host, const std::string& tool, const Json& arguments) {
    const Json result = host.call_tool(tool, arguments, 180s);
    EXPECT_TRUE(McpClient::is_error(result)) << tool << " " << arguments.dump().substr(0, 300)
                                             << " succeeded: " << result.dump().substr(0, 1500);
    const Json payload = McpClient::payload_of(result);
    if (payload.is_string()) return payload.get<std::string>();
    return payload.is_object() ? payload.value("error", "") : payload.dump();
  }
  // stdout of a command that must exit 0.
  static std::string shell(McpClient& host, const std::string& command,
                           const std::string& input = "") {
    Json arguments = {{"command", command}};
    if (!input.empty()) arguments["stdin"] = input;
    const Json payload = ok(host, "terminal_execute", arguments);
    EXPECT_EQ(payload.value("exit_code", -1), 0)
        << command.substr(0, 200) << ": " << payload.dump().substr(0, 1500);
    return payload.value("stdout", "");
  }

  // The node's view: `sh -c script` in the pod's computer container, through docker.
  std::string on_node(const std::string& script, const std::string& id = "") {
    const std::string container =
        view_->docker_container(name_space_, pod_of(id.empty() ? computer_id_ : id), "computer");
    int code = -1;
    std::string out = view_->docker_sh(container, script, &code);
    EXPECT_EQ(code, 0) << "docker exec " << container << " sh -c '" << script << "'";
    return out;
  }

  // The names of the objects of `resource` in `name_space`, through the API.
  std::vector<std::string> object_names(const std::string& name_space,
                                        const std::string& resource) {
    const std::string group =
        resource == "networkpolicies" ? "/apis/networking.k8s.io/v1" : "/api/v1";
    const auto answer = view_->call("GET", group + "/namespaces/" + name_space + "/" + resource);
    EXPECT_EQ(answer.status, 200) << resource << ": " << answer.body.dump().substr(0, 500);
    std::vector<std::string> names;
    for (const Json& item : answer.body.value("items", Json::array())) {
      names.push_back(item["metadata"].value("name", ""));
    }
    return names;
  }

  std::unique_ptr<ClusterView> view_;
  std::string name_space_;
  std::string computer_id_;
  std::vector<std::string> namespaces_;
  TempDirectory state_{"vc-k8s-host-test"};
  std::vector<std::unique_ptr<McpClient>> hosts_;
};

// --- 1. the file tools --------------------------------------------------------------------------

TEST_F(KubernetesHostTest, FileToolsWriteReadEditAndListWhatTheNodeSees) {
  auto& host = start_host();
  const std::string content =
      "quotes ' \" ` and backslashes \\ $(echo no) ${HOME}\ntabs\tCRLF\r\nUTF-8: héllo 日本語 🎉\n"
      "no trailing newline";
  const Json written = ok(host, "write_file", {{"path", "notes/a.txt"}, {"content", content}});
  EXPECT_EQ(written["path"], "/workspace/notes/a.txt");
  EXPECT_EQ(written["created_parent_directories"], true);
  EXPECT_EQ(written["sha256"], sha256_hex(content));
  // The node sees exactly these bytes in the pod's workspace.
  EXPECT_EQ(on_node("cat /workspace/notes/a.txt"), content);
  EXPECT_EQ(on_node("sha256sum /workspace/notes/a.txt | cut -d' ' -f1"),
            sha256_hex(content) + "\n");

  const Json read = ok(host, "read_file", {{"path", "/workspace/notes/a.txt"}});
  EXPECT_EQ(read["content"], content);
  EXPECT_EQ(read["size_bytes"], content.size());

  // Written on the node, read through the host; written by a command, read by read_file; and
  // written by write_file, read by a command.
  on_node("printf 'from the node\\n' > /workspace/node.txt");
  EXPECT_EQ(ok(host, "read_file", {{"path", "node.txt"}})["content"], "from the node\n");
  shell(host, "printf 'line 1\\nline 2\\n' > /workspace/by-command.txt");
  EXPECT_EQ(ok(host, "read_file", {{"path", "by-command.txt"}})["content"], "line 1\nline 2\n");
  ok(host, "write_file", {{"path", "for-command.txt"}, {"content", "alpha\nbeta\n"}});
  EXPECT_EQ(shell(host, "tac /workspace/for-command.txt"), "beta\nalpha\n");

  const Json edited =
      ok(host, "edit_file",
         {{"path", "for-command.txt"}, {"old_text", "beta"}, {"new_text", "gamma"}});
  EXPECT_EQ(edited["replacements"], 1);
  EXPECT_EQ(on_node("cat /workspace/for-command.txt"), "alpha\ngamma\n");
  EXPECT_EQ(fails(host, "edit_file",
                  {{"path", "for-command.txt"}, {"old_text", "delta"}, {"new_text", "x"}}),
            "old_text was not found in /workspace/for-command.txt");

  const Json listing = ok(host, "list_directory", Json::object());
  EXPECT_EQ(listing["path"], "/workspace");
  std::set<std::string> listed;
  for (const Json& entry : listing["entries"]) listed.insert(entry.value("name", ""));
  std::set<std::string> on_the_node;
  std::istringstream names(on_node("ls -A /workspace"));
  for (std::string name; std::getline(names, name);) on_the_node.insert(name);
  EXPECT_EQ(listed, on_the_node);
  EXPECT_TRUE(listed.contains("notes")) << listing.dump();
}

TEST_F(KubernetesHostTest, BinaryAndLargeFilesCrossTheExecStreamIntact) {
  auto& host = start_host();
  // Large text: about 900 KiB through write_file (stdin of an exec over the WebSocket).
  std::string large;
  for (int line = 0; large.size() < 900 * 1024; ++line) {
    large += "line " + std::to_string(line) + " with ünïcödé and \"quotes\"\n";
  }
  const Json written = ok(host, "write_file", {{"path", "large.txt"}, {"content", large}});
  EXPECT_EQ(written["size_bytes"], large.size());
  EXPECT_EQ(on_node("sha256sum /workspace/large.txt | cut -d' ' -f1"), sha256_hex(large) + "\n");
  const Json read = ok(host, "read_file", {{"path", "large.txt"}});
  EXPECT_EQ(read["content"].get<std::string>().size(), large.size());
  EXPECT_TRUE(read["content"] == large) << "read_file changed the large file";

  // Binary both ways, as an agent moves it: base64 through terminal_execute.
  const std::string blob = random_bytes(300 * 1024, 20240601);
  shell(host, "base64 -d > /workspace/blob.bin", base64_encode(blob));
  EXPECT_EQ(on_node("sha256sum /workspace/blob.bin | cut -d' ' -f1"), sha256_hex(blob) + "\n");
  on_node("head -c 200000 /dev/urandom > /workspace/noise.bin");
  const std::string noise_sum = on_node("sha256sum /workspace/noise.bin | cut -d' ' -f1");
  const std::string noise = base64_decode(shell(host, "base64 -w0 /workspace/noise.bin"));
  EXPECT_EQ(noise.size(), 200000u);
  EXPECT_EQ(sha256_hex(noise) + "\n", noise_sum);

  // read_file refuses binary with the offset of the first byte that is not UTF-8.
  std::string mostly_text(100, 'a');
  mostly_text += random_bytes(1000, 7);
  mostly_text[100] = static_cast<char>(0xFF);
  shell(host, "base64 -d > /workspace/mixed.bin", base64_encode(mostly_text));
  EXPECT_EQ(fails(host, "read_file", {{"path", "mixed.bin"}}),
            "File is not valid UTF-8 text at byte 100: /workspace/mixed.bin");
}

TEST_F(KubernetesHostTest, MissingFilesAndDirectoriesAreClearErrors) {
  auto& host = start_host();
  shell(host, "mkdir -p /workspace/d && echo x > /workspace/d/f");
  EXPECT_EQ(fails(host, "read_file", {{"path", "missing.txt"}}),
            "File does not exist: /workspace/missing.txt");
  EXPECT_EQ(
      fails(host, "edit_file", {{"path", "missing.txt"}, {"old_text", "a"}, {"new_text", "b"}}),
      "File does not exist: /workspace/missing.txt");
  EXPECT_EQ(fails(host, "read_file", {{"path", "d"}}), "Path is not a regular file: /workspace/d");
  EXPECT_EQ(fails(host, "list_directory", {{"path", "nowhere"}}),
            "Directory does not exist: /workspace/nowhere");
  const Json without_parents = {
      {"path", "no/such/dir/f.txt"}, {"content", "x"}, {"create_parent_directories", false}};
  EXPECT_EQ(fails(host, "write_file", without_parents),
            "Parent directory does not exist: /workspace/no/such/dir");
  // Nothing was made by the failed calls.
  EXPECT_EQ(on_node("ls -A /workspace"), "d\n");
}

// --- 2. persistence across host restarts; restart and reset -------------------------------------

TEST_F(KubernetesHostTest, StatusToolsSayWhatPersistsAndHowNetworkOffIsEnforced) {
  auto& host = start_host();
  const Json ui = ok(host, "computer_ui", Json::object());
  ASSERT_TRUE(ui["persistence"].is_string()) << ui.dump();
  const std::string persistence = ui["persistence"];
  EXPECT_NE(persistence.find("/workspace and the home directories (/root)"), std::string::npos)
      << persistence;
  EXPECT_NE(persistence.find("claim " + pod()), std::string::npos) << persistence;
  EXPECT_TRUE(ui["network_enforcement"].is_null()) << "the network is on";

  const Json off = ok(host, "set_network_access", {{"enabled", false}});
  EXPECT_EQ(off["network_access"], false);
  const Json status = ok(host, "runtime_status", Json::object());
  EXPECT_EQ(status["network_access"], false);
  ASSERT_TRUE(status["network_enforcement"].is_string()) << status.dump();
  EXPECT_NE(status["network_enforcement"].get<std::string>().find("network-guard"),
            std::string::npos);
  // What the sentence says is so: the policy object exists beside the in-pod rules.
  EXPECT_EQ(view_->get(name_space_, "networkpolicies", pod() + ".network-off").status, 200);
  close_host(host);
}

TEST_F(KubernetesHostTest, TheComputerOutlivesTheHostRestartKeepsTheWorkspaceResetWipesIt) {
  auto& first = start_host();
  ok(first, "write_file", {{"path", "/workspace/x"}, {"content", "kept across hosts\n"}});
  const auto pod_before = view_->get(name_space_, "pods", pod());
  ASSERT_EQ(pod_before.status, 200);
  const std::string uid = pod_before.body["metadata"].value("uid", "");
  close_host(first);

  // Closing the host leaves the computer: the same pod runs on.
  const auto pod_after_close = view_->get(name_space_, "pods", pod());
  ASSERT_EQ(pod_after_close.status, 200) << "the pod went with the host";
  EXPECT_EQ(pod_after_close.body["metadata"].value("uid", ""), uid);
  EXPECT_EQ(pod_after_close.body["status"].value("phase", ""), "Running");
  EXPECT_FALSE(pod_after_close.body["metadata"].contains("deletionTimestamp"));

  HostSetup with_lifecycle_tools;
  with_lifecycle_tools.extra_args = {"--lifecycle-tools"};
  auto& second = start_host(with_lifecycle_tools);
  EXPECT_EQ(ok(second, "read_file", {{"path", "x"}})["content"], "kept across hosts\n");
  EXPECT_EQ(shell(second, "cat /workspace/x; hostname"), "kept across hosts\n" + pod() + "\n");
  EXPECT_EQ(view_->get(name_space_, "pods", pod()).body["metadata"].value("uid", ""), uid)
      << "the second host made a new pod instead of using the one that runs";

  // Restart: a new pod on the same claim. /workspace stays; the rest is the image's again.
  const std::string claim_uid =
      view_->get(name_space_, "persistentvolumeclaims", pod()).body["metadata"].value("uid", "");
  ASSERT_FALSE(claim_uid.empty());
  shell(second, "echo outside > /etc/vc-outside");
  const Json restarted = ok(second, "computer_restart", {{"computer_id", computer_id_}});
  EXPECT_EQ(restarted["computer_id"], computer_id_);
  const auto pod_after_restart = view_->get(name_space_, "pods", pod());
  ASSERT_EQ(pod_after_restart.status, 200);
  EXPECT_NE(pod_after_restart.body["metadata"].value("uid", ""), uid) << "not restarted";
  EXPECT_EQ(on_node("cat /workspace/x"), "kept across hosts\n");
  EXPECT_EQ(on_node("cat /etc/vc-outside 2>/dev/null || echo gone"), "gone\n");
  EXPECT_EQ(shell(second, "cat /workspace/x"), "kept across hosts\n");

  // Factory reset: a new claim; the workspace is empty again and the computer works.
  const Json reset = ok(second, "computer_factory_reset", {{"computer_id", computer_id_}});
  EXPECT_EQ(reset["computer_id"], computer_id_);
  const auto claim_after_reset = view_->get(name_space_, "persistentvolumeclaims", pod());
  ASSERT_EQ(claim_after_reset.status, 200);
  EXPECT_NE(claim_after_reset.body["metadata"].value("uid", ""), claim_uid) << "the claim was kept";
  EXPECT_EQ(on_node("ls -A /workspace"), "");
  EXPECT_EQ(fails(second, "read_file", {{"path", "x"}}), "File does not exist: /workspace/x");
  EXPECT_EQ(shell(second, "echo fresh > /workspace/y && cat /workspace/y"), "fresh\n");
  close_host(second);
}

// --- 3. faults ----------------------------------------------------------------------------------

// The API server killed and started again. kill() ends the one kube-apiserver process with
// SIGKILL (a SIGTERM'd apiserver drains its connections for about a minute first); restore()
// runs scripts/engines/kubernetes-up.sh, which starts what is missing and waits until the
// cluster serves again. The destructor restores a server still down, whatever the test did.
class ApiServerOutage {
 public:
  ApiServerOutage() = default;
  ApiServerOutage(const ApiServerOutage&) = delete;
  ApiServerOutage& operator=(const ApiServerOutage&) = delete;
  ~ApiServerOutage() {
    if (down_) (void)restore();
  }

  // "" on success, else what went wrong.
  std::string kill() {
    // -x matches the process name exactly: a shell whose command line merely mentions
    // kube-apiserver (a `tail -f` of its log) is not taken for it.
    const std::vector<pid_t> servers = pids();
    if (servers.size() != 1) {
      return "expected one kube-apiserver process, found " + std::to_string(servers.size());
    }
    if (::kill(servers[0], SIGKILL) != 0) {
      return "kill " + std::to_string(servers[0]) + ": errno " + std::to_string(errno);
    }
    down_ = true;
    killed_at_ = Clock::now();
    const auto deadline = Clock::now() + 10s;
    while (running(servers[0])) {
      if (Clock::now() > deadline) return "the kube-apiserver did not end within 10 s";
      std::this_thread::sleep_for(100ms);
    }
    return "";
  }

  std::string restore() {
    down_ = false;
    const std::vector<std::string> argv = {
        "bash", std::string(VC_SOURCE_DIR) + "/scripts/engines/kubernetes-up.sh"};
    const CommandResult up = run_command(argv, 300s);
    if (!up.ok()) return up.describe(argv);
    if (pids().size() != 1) return "kubernetes-up.sh left no kube-apiserver running";
    return "";
  }

  Clock::duration since_kill() const { return Clock::now() - killed_at_; }

 private:
  // True while `pid` exists and is not a zombie its parent has yet to reap.
  static bool running(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string fields;
    if (!std::getline(stat, fields)) return false;
    const auto after_name = fields.rfind(')');
    return after_name != std::string::npos && after_name + 2 < fields.size() &&
           fields[after_name + 2] != 'Z';
  }

  static std::vector<pid_t> pids() {
    const CommandResult found = run_command({"pgrep", "-x", "kube-apiserver"});
    std::vector<pid_t> pids;
    std::istringstream lines(found.out);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty()) pids.push_back(static_cast<pid_t>(std::stol(line)));
    }
    return pids;
  }

  bool down_ = false;
  Clock::time_point killed_at_;
};

class ApiServerOutageTest : public KubernetesHostTest {
 protected:
  void SetUp() override {
    KubernetesHostTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    // Only the cluster kubernetes-up.sh runs on this machine may be stopped and started.
    if (view_->access().server != kLocalApiServer) {
      GTEST_SKIP() << "the API server outage needs the local cluster at " << kLocalApiServer
                   << ", not " << view_->access().server;
    }
  }

  // Lines of the computer container's processes that contain `text`.
  long processes_with(const std::string& container, const std::string& text) {
    const auto lines = view_->processes(container);
    return std::count_if(lines.begin(), lines.end(),
                         [&](const std::string& line) { return contains(line, text); });
  }
  bool wait_for_process(const std::string& container, const std::string& text, bool present,
                        std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while ((processes_with(container, text) > 0) != present) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(200ms);
    }
    return true;
  }

  // Starts `command` with terminal_execute, kills the API server once the node runs it, and
  // returns the tool's error sentence, which must come within 15 s of the kill.
  std::string cut_off_by_an_outage(McpClient& host, ApiServerOutage& outage,
                                   const std::string& command, const std::string& marker) {
    const std::string container = view_->docker_container(name_space_, pod(), "computer");
    const Json call_id = host.send_request(
        "tools/call", Json{{"name", "terminal_execute"},
                           {"arguments", {{"command", command}, {"timeout", 300}}}});
    // The stream must be open when the server goes: wait until the node runs the command.
    EXPECT_TRUE(wait_for_process(container, marker, true, 30s)) << "the command never ran";
    const std::string killed = outage.kill();
    EXPECT_EQ(killed, "");
    if (!killed.empty()) return "";

    const auto response = host.try_await_response(call_id, 60s);
    EXPECT_TRUE(response.has_value()) << "terminal_execute hung after the API server died\n"
                                      << host.diagnostics();
    if (!response) return "";
    const auto waited = outage.since_kill();
    EXPECT_LT(waited, 15s) << "the error took "
                           << std::chrono::duration_cast<std::chrono::seconds>(waited).count()
                           << " s";
    const Json result = response->value("result", Json::object());
    EXPECT_TRUE(McpClient::is_error(result)) << response->dump();
    return McpClient::payload_of(result).value("error", "");
  }
};

TEST_F(ApiServerOutageTest, AnApiServerRestartDuringACommandEndsItWithAnErrorAndTheNextOneWorks) {
  auto& host = start_host();
  EXPECT_EQ(shell(host, "echo kept-through-the-outage > /workspace/kept.txt && echo ready"),
            "ready\n");

  ApiServerOutage outage;
  const std::string error =
      cut_off_by_an_outage(host, outage, "sleep 20; echo finished", "sleep 20");
  RecordProperty("error", error);
  // The command went through the exec agent (pod_agents.cpp): it ended without its result, and
  // the sentence carries exec_stream.cpp's subject and how the stream ended (exec_stream.cpp,
  // api_websocket.cpp): the server's socket closed, or broke.
  const std::string subject = "Cannot run a command in pod " + pod() +
                              " (container computer) of namespace " + name_space_ + ": ";
  EXPECT_EQ(error.rfind("The command in computer " + computer_id_ + " ended without its result", 0),
            0u)
      << error;
  EXPECT_TRUE(contains(error, subject + "the connection ended before the command's exit status arrived") ||
              contains(error, subject + "the connection broke: "))
      << error;
  EXPECT_TRUE(contains(error, "run it again")) << error;
  EXPECT_FALSE(contains(error, "died")) << "an API server restart is not the computer's death";
  // The server still answers while the API is down.
  EXPECT_TRUE(host.request("ping", Json::object(), 10s).contains("result"));

  ASSERT_EQ(outage.restore(), "");
  // The next command works, on the same pod, with the workspace as it was.
  const std::string uid = view_->get(name_space_, "pods", pod()).body["metadata"].value("uid", "");
  const auto started = Clock::now();
  const Json next =
      ok(host, "terminal_execute", {{"command", "cat /workspace/kept.txt; hostname"}});
  EXPECT_EQ(next.value("stdout", ""), "kept-through-the-outage\n" + pod() + "\n") << next.dump();
  EXPECT_LT(Clock::now() - started, 60s);
  EXPECT_EQ(view_->get(name_space_, "pods", pod()).body["metadata"].value("uid", ""), uid);
  EXPECT_FALSE(contains(host.stderr_text(), "shutting down: the computer died"))
      << host.diagnostics();
  close_host(host);
}

TEST_F(ApiServerOutageTest, ACommandCutOffByAnApiServerRestartDoesNotRunOnUnseen) {
  // The tool call ended with an error, so the agent takes the command as not running (and may
  // run it again). The plugin knows its process group (the exec prologue reports the PID) and
  // kills it on cancel, timeout and the output limit; a command whose stream broke must not go
  // on either, once the API server is back.
  auto& host = start_host();
  EXPECT_EQ(shell(host, "echo ready"), "ready\n");
  const std::string container = view_->docker_container(name_space_, pod(), "computer");
  ApiServerOutage outage;
  const std::string error =
      cut_off_by_an_outage(host, outage, "sleep 123; echo late > /workspace/late.txt", "sleep 123");
  EXPECT_FALSE(error.empty());
  ASSERT_EQ(outage.restore(), "");
  EXPECT_EQ(shell(host, "echo after"), "after\n");

  EXPECT_TRUE(wait_for_process(container, "sleep 123", false, 20s))
      << "the command whose tool call failed still runs in the pod 20 s after the API server "
         "came back:\n"
      << ::testing::PrintToString(view_->processes(container));
  close_host(host);
}

// A ServiceAccount of `own_namespace` with a token; its rights are what `rules` grant there.
struct ServiceAccountAccess {
  std::string user;        // system:serviceaccount:<namespace>:<name>
  std::string kubeconfig;  // a file with its token and the cluster's CA
};

class ForbiddenNamespaceTest : public KubernetesHostTest {
 protected:
  ServiceAccountAccess make_account(const std::string& own_namespace, const std::string& name,
                                    const Json& rules) {
    const auto created =
        view_->call("POST", "/api/v1/namespaces/" + own_namespace + "/serviceaccounts",
                    Json{{"metadata", {{"name", name}}}});
    EXPECT_EQ(created.status, 201) << created.body.dump();
    const std::string rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/" + own_namespace;
    EXPECT_EQ(
        view_->call("POST", rbac + "/roles", Json{{"metadata", {{"name", name}}}, {"rules", rules}})
            .status,
        201);
    EXPECT_EQ(
        view_
            ->call(
                "POST", rbac + "/rolebindings",
                Json{
                    {"metadata", {{"name", name}}},
                    {"roleRef",
                     {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", name}}},
                    {"subjects", Json::array({{{"kind", "ServiceAccount"},
                                               {"name", name},
                                               {"namespace", own_namespace}}})}})
            .status,
        201);
    // v1.20's token controller puts a token secret beside every account.
    std::string secret;
    const auto deadline = Clock::now() + 60s;
    while (secret.empty() && Clock::now() < deadline) {
      const auto account =
          view_->call("GET", "/api/v1/namespaces/" + own_namespace + "/serviceaccounts/" + name);
      for (const Json& entry : account.body.value("secrets", Json::array())) {
        secret = entry.value("name", "");
      }
      if (secret.empty()) std::this_thread::sleep_for(300ms);
    }
    EXPECT_FALSE(secret.empty()) << "no token secret for the service account " << name;
    const auto token_secret =
        view_->call("GET", "/api/v1/namespaces/" + own_namespace + "/secrets/" + secret);
    const std::string token =
        base64_decode(token_secret.body.value(Json::json_pointer("/data/token"), ""));
    EXPECT_FALSE(token.empty()) << token_secret.body.dump().substr(0, 300);

    ServiceAccountAccess access;
    access.user = "system:serviceaccount:" + own_namespace + ":" + name;
    access.kubeconfig = (state_.path() / (name + ".kubeconfig")).string();
    std::ofstream(access.kubeconfig)
        << "apiVersion: v1\nkind: Config\nclusters:\n- name: local\n  cluster:\n"
        << "    server: " << view_->access().server << "\n"
        << "    certificate-authority: " << view_->access().ca_file << "\n"
        << "users:\n- name: " << name << "\n  user:\n    token: " << token << "\n"
        << "contexts:\n- name: local\n  context:\n    cluster: local\n    user: " << name << "\n"
        << "current-context: local\n";
    return access;
  }

  // What docs/kubernetes-backend.md says the backend needs in its namespace.
  static Json backend_rules() {
    return Json::array(
        {{{"apiGroups", {""}},
          {"resources", {"pods"}},
          {"verbs", {"get", "list", "watch", "create", "delete"}}},
         {{"apiGroups", {""}}, {"resources", {"pods/exec"}}, {"verbs", {"create", "get"}}},
         {{"apiGroups", {""}},
          {"resources", {"persistentvolumeclaims"}},
          {"verbs", {"get", "list", "create", "delete"}}},
         {{"apiGroups", {"networking.k8s.io"}},
          {"resources", {"networkpolicies"}},
          {"verbs", {"get", "list", "create", "delete"}}}});
  }
};

TEST_F(ForbiddenNamespaceTest, ANamespaceTheAccountMayNotUseIsA403SentenceNamingVerbAndResource) {
  const std::string account_name = "vc-test-agent";
  const ServiceAccountAccess account = make_account(name_space_, account_name, backend_rules());
  const std::string elsewhere = name_space_ + "-other";
  create_namespace(elsewhere);

  // In its own namespace the account has what the backend needs: the token and the rules work.
  HostSetup as_account;
  as_account.kubeconfig = account.kubeconfig;
  auto& allowed = start_host(as_account);
  EXPECT_EQ(shell(allowed, "echo allowed"), "allowed\n");
  close_host(allowed);
  EXPECT_EQ(view_->get(name_space_, "pods", pod()).status, 200);

  // In another namespace the first tool call fails with the server's 403, verb and resource.
  HostSetup elsewhere_as_account = as_account;
  elsewhere_as_account.computer_id = unique_name("h");
  elsewhere_as_account.name_space = elsewhere;
  auto& refused = start_host(elsewhere_as_account);
  const auto started = Clock::now();
  const std::string error = fails(refused, "terminal_execute", {{"command", "echo never"}});
  EXPECT_LT(Clock::now() - started, 30s);
  // api_status.cpp: "The Kubernetes API at <server> refused <method> <path>: <server's words>
  // (Forbidden). The account lacks RBAC permission to <verb> <resource> in the namespace <ns>; …"
  EXPECT_EQ(error.rfind("The Kubernetes API at " + view_->access().server +
                            " refused GET /api/v1/namespaces/" + elsewhere + "/pods",
                        0),
            0u)
      << error;
  EXPECT_TRUE(contains(error, "User \"" + account.user + "\" cannot list resource \"pods\""))
      << error;
  EXPECT_TRUE(contains(
      error, "(Forbidden). The account lacks RBAC permission to list pods in the namespace " +
                 elsewhere + ";"))
      << error;
  EXPECT_TRUE(contains(error, "docs/kubernetes-backend.md")) << error;
  // The file tools say the same; nothing was made in the namespace.
  EXPECT_EQ(fails(refused, "read_file", {{"path", "x"}}), error);
  EXPECT_TRUE(object_names(elsewhere, "pods").empty());
  EXPECT_TRUE(object_names(elsewhere, "persistentvolumeclaims").empty());
  close_host(refused);
}

TEST_F(KubernetesHostTest,
       AnImageNoNodeHasFailsTheCreateAtOnceWithTheKubeletsReasonAndLeavesNothing) {
  HostSetup missing_image;
  missing_image.image = kMissingImage;
  auto& host = start_host(missing_image);
  const auto started = Clock::now();
  const std::string error = fails(host, "terminal_execute", {{"command", "echo never"}});
  const auto took = Clock::now() - started;
  EXPECT_LT(took, 60s) << "reported after "
                       << std::chrono::duration_cast<std::chrono::seconds>(took).count() << " s";

  // The kubelet's own words, from the pod's events (they outlive the pod).
  std::string kubelet_message;
  std::string container_path;
  const auto events = view_->call("GET", "/api/v1/namespaces/" + name_space_ + "/events");
  for (const Json& event : events.body.value("items", Json::array())) {
    if (event.value(Json::json_pointer("/involvedObject/name"), "") != pod()) continue;
    if (event.value("reason", "") != "ErrImageNeverPull") continue;
    kubelet_message = event.value("message", "");
    container_path = event.value(Json::json_pointer("/involvedObject/fieldPath"), "");
  }
  ASSERT_FALSE(kubelet_message.empty())
      << "no ErrImageNeverPull event for " << pod() << ": " << events.body.dump().substr(0, 2000);
  // "spec.initContainers{seed-claim}" -> "seed-claim"
  const auto open = container_path.find('{');
  const std::string container = container_path.substr(open + 1, container_path.size() - open - 2);
  // pod_status.cpp: "The pod <pod> cannot start: its container <c>'s image "<image>" cannot be
  // pulled (<reason>: <the kubelet's message>)."
  EXPECT_EQ(error, "The pod " + pod() + " cannot start: its container " + container +
                       "'s image \"" + kMissingImage +
                       "\" cannot be pulled (ErrImageNeverPull: " + kubelet_message + ").");

  // Nothing is left: no pod, claim or policy, and no running container on the node (the
  // kubelet's garbage collection removes the exited sandbox of a deleted pod later, by itself).
  const auto deadline = Clock::now() + 30s;
  auto left = [&] {
    std::vector<std::string> names;
    for (const char* resource : {"pods", "persistentvolumeclaims", "networkpolicies"}) {
      for (const auto& name : object_names(name_space_, resource))
        names.push_back(resource + ("/" + name));
    }
    const auto containers = run_command(
        {"docker", "ps", "-q", "--filter", "label=io.kubernetes.pod.namespace=" + name_space_});
    if (!trim_trailing(containers.out).empty()) names.push_back("docker: " + containers.out);
    return names;
  };
  std::vector<std::string> remaining = left();
  while (!remaining.empty() && Clock::now() < deadline) {
    std::this_thread::sleep_for(500ms);
    remaining = left();
  }
  EXPECT_TRUE(remaining.empty()) << ::testing::PrintToString(remaining);

  // The host goes on answering: the next call fails the same way instead of hanging.
  EXPECT_EQ(fails(host, "terminal_execute", {{"command", "echo never"}}), error);
  close_host(host);
}

}  // namespace
}  // namespace vc::test
