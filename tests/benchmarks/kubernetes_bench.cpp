// kubernetes_bench.cpp — the Kubernetes rows of the exec benchmark. See kubernetes_bench.h.
//
// Single-threaded. kubectl's side works on a copy of a computer's own claim and pod (same spec,
// another name, without the identity labels the plugin lists by), so both sides make, restart
// and reset the same objects.
#include "kubernetes_bench.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backend_driver.h"
#include "command_runner.h"
#include "host_environment.h"
#include "mcp_client.h"
#include "temp_directory.h"
#include "test_names.h"

namespace vc::bench {
namespace {

using vc::test::Json;
using namespace std::chrono_literals;

constexpr const char* kPluginFile = "vc-backend-kubernetes.so";
constexpr const char* kComputerContainer = "computer";
constexpr auto kPodWait = 180s;  // a pod's start, as `kubectl wait` and the plugin bound it

// The namespace of this run: deleted by the benchmark when it ends, or, when die() ends the
// process first, at exit.
std::string g_namespace_to_delete;
std::vector<std::string> g_kubectl_prefix;

void delete_namespace() {
  if (g_namespace_to_delete.empty()) return;
  std::vector<std::string> argv = g_kubectl_prefix;
  argv.insert(argv.end(), {"delete", "namespace", g_namespace_to_delete, "--wait=false"});
  const auto result = vc::test::run_command(argv, 60s);
  if (!result.ok()) std::cerr << "warning: " << result.describe(argv) << '\n';
  g_namespace_to_delete.clear();
}

std::string pod_of(const std::string& computer_id) { return "kilntainer-" + computer_id; }

// A payload's error, bounded: what a failed tool call said.
std::string tool_error(const Json& result) {
  const Json payload = vc::test::McpClient::payload_of(result);
  const std::string text = payload.is_object() ? payload.value("error", payload.dump())
                                               : payload.dump();
  return text.substr(0, 300);
}

// A claim and pod like `claim` and `pod` (a computer's), under `name`, without the labels and
// annotations that make them a computer: kubectl's side of the create, restart and reset rows.
Json copy_claim(const Json& claim, const std::string& name) {
  const Json& source = claim.at("spec");
  Json spec = Json::object();
  for (const char* key : {"accessModes", "resources", "storageClassName", "volumeMode"}) {
    if (source.contains(key)) spec[key] = source.at(key);
  }
  return {{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
          {"metadata", {{"name", name}}}, {"spec", spec}};
}

Json copy_pod(const Json& pod, const std::string& computer_claim, const std::string& name) {
  Json spec = pod.at("spec");
  spec.erase("nodeName");  // scheduled afresh, as the plugin's own restart does
  for (auto& volume : spec["volumes"]) {
    if (volume.contains("persistentVolumeClaim") &&
        volume["persistentVolumeClaim"].value("claimName", "") == computer_claim) {
      volume["persistentVolumeClaim"]["claimName"] = name;
    }
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", spec}};
}

class KubernetesBench {
 public:
  explicit KubernetesBench(Settings settings) : settings_(std::move(settings)) {
    name_space_ = vc::test::unique_name("vc-test-bench");
    kubectl_prefix_ = {settings_.kubectl, "--kubeconfig", settings_.kubeconfig,
                       "--cache-dir", (state_.path() / "kubectl-cache").string()};
    g_kubectl_prefix = kubectl_prefix_;
    kubectl_prefix_.insert(kubectl_prefix_.end(), {"-n", name_space_});
  }

  // Before state_ goes: kubectl's cache is in it.
  ~KubernetesBench() {
    plugin_.reset();
    delete_namespace();
  }

  // The namespace, its default service account's token (v1.20 refuses pods before it), and
  // the plugin through the C ABI in this process.
  void prepare() {
    std::vector<std::string> create = g_kubectl_prefix;
    create.insert(create.end(), {"create", "namespace", name_space_});
    const auto created = vc::test::run_command(create, 60s);
    if (!created.ok()) die("cannot create the namespace: " + created.describe(create));
    g_namespace_to_delete = name_space_;
    std::atexit(delete_namespace);
    const auto deadline = Clock::now() + 90s;
    while (trim(kubectl_quiet({"get", "serviceaccount", "default", "-o",
                               "jsonpath={.secrets[0].name}"}).out).empty()) {
      if (Clock::now() > deadline) {
        die("the namespace " + name_space_ + " got no service account token within 90 s");
      }
      std::this_thread::sleep_for(500ms);
    }
    plugin_ = std::make_unique<vc::test::BackendDriver>(
        std::filesystem::path(settings_.plugin_dir) / kPluginFile,
        Json{{"kubeconfig", settings_.kubeconfig}, {"namespace", name_space_},
             {"image", settings_.image}, {"image-pull-policy", "Never"}},
        state_.path() / "driver");
  }

  void run() {
    const std::string id = vc::test::unique_name("bench");
    progress("making the warm computer and kubectl's copy of it");
    plugin_create(id);  // the warm computer, made untimed through the plugin
    auto host = start_host(id);
    for (int i = 0; i < 3; ++i) mcp_true(*host);  // the first one copies the agent in
    // A host with --exec-agent off, on a computer of its own: the API's exec per command.
    const std::string api_exec_id = vc::test::unique_name("bench-api-exec");
    plugin_create(api_exec_id);
    auto api_exec_host = start_host(api_exec_id, "off");
    for (int i = 0; i < 3; ++i) mcp_true(*api_exec_host);

    // The copy kubectl restarts and resets, made from the warm computer's objects.
    const std::string twin = vc::test::unique_name("vc-bench-twin");
    write_twin(id, twin);
    kubectl({"create", "-f", twin_file(twin)});
    kubectl({"wait", "--for=condition=Ready", "pod/" + twin, "--timeout=180s"});

    progress("exec rows");
    exec_rows(*host, *api_exec_host, id);
    std::this_thread::sleep_for(2s);  // idle
    read_rss(host->pid(), rss_kb_, hwm_kb_);
    read_rss(api_exec_host->pid(), api_exec_rss_kb_, api_exec_hwm_kb_);
    close_host(api_exec_host);
    plugin_remove(api_exec_id);
    progress("inspect rows");
    inspect_rows(id);
    progress("create rows");
    create_rows(id);
    progress("restart and factory reset rows");
    restart_and_reset_rows(*host, id, twin);
    close_host(host);
    progress("done");
    print();
  }

 private:
  // On stderr: the Kubernetes rows take minutes.
  void progress(const std::string& phase) const {
    std::cerr << "vc_exec_benchmark: " << phase << " ("
              << static_cast<int>(elapsed_ms(started_) / 1000) << " s so far)\n";
  }

  // --- the parties ------------------------------------------------------------------------

  // exec_agent: the host's --exec-agent, auto (the default) or off (one API exec per command).
  std::unique_ptr<vc::test::McpClient> start_host(const std::string& computer_id,
                                                  const std::string& exec_agent = "auto") {
    vc::test::McpClientOptions options;
    options.binary = settings_.host_binary;
    options.args = {"--backend", "kubernetes", "--plugin-dir", settings_.plugin_dir,
                    "--state-dir", (state_.path() / "host").string(),
                    "--kubeconfig", settings_.kubeconfig, "--namespace", name_space_,
                    "--image", settings_.image, "--image-pull-policy", "Never",
                    "--log-level", "warn", "--lifecycle-tools", "--exec-agent", exec_agent};
    options.environment = vc::test::host_environment({{"COMPUTER_ID", computer_id}});
    options.report_on_failure = false;
    auto host = std::make_unique<vc::test::McpClient>(options);
    host->initialize();
    return host;
  }

  static void close_host(std::unique_ptr<vc::test::McpClient>& host) {
    const auto status = host->close(30s);
    if (!status.exited || status.code != 0) {
      std::cerr << "warning: the host ended with " << status.describe() << '\n';
    }
    host.reset();
  }

  // terminal_execute of `true`: its time, or the host's error.
  std::optional<std::string> try_mcp_true(vc::test::McpClient& host, double& ms) {
    const auto start = Clock::now();
    const Json result = host.call_tool("terminal_execute", {{"args", {"true"}}}, 300s);
    ms = elapsed_ms(start);
    if (vc::test::McpClient::is_error(result)) return tool_error(result);
    if (vc::test::McpClient::payload_of(result).value("exit_code", -1) != 0) {
      return "exit code other than 0: " + result.dump().substr(0, 300);
    }
    return std::nullopt;
  }

  double mcp_true(vc::test::McpClient& host) {
    double ms = 0;
    if (auto error = try_mcp_true(host, ms)) {
      die("terminal_execute of true failed: " + *error + "\n" + host.diagnostics());
    }
    return ms;
  }

  double mcp_tool(vc::test::McpClient& host, const std::string& tool, const Json& arguments) {
    const auto start = Clock::now();
    const Json result = host.call_tool(tool, arguments, 300s);
    const double ms = elapsed_ms(start);
    if (vc::test::McpClient::is_error(result)) die(tool + " failed: " + tool_error(result));
    return ms;
  }

  void plugin_create(const std::string& id) {
    const auto outcome = plugin_->run("create", create_request(id), kPodWait);
    if (!outcome.ok()) die("the plugin's create failed: " + outcome.describe());
  }

  double plugin_true(const std::string& id) {
    const Json request = {{"computer_id", id}, {"argv", {"true"}}, {"timeout_ms", 60'000},
                          {"output_limit", 1'048'576}};
    const auto start = Clock::now();
    const auto outcome = plugin_->run("exec", request, 120s);
    const double ms = elapsed_ms(start);
    if (!outcome.ok() || outcome.document.value("exit_code", -1) != 0) {
      die("the plugin's exec of true failed: " + outcome.describe());
    }
    return ms;
  }

  void plugin_remove(const std::string& id) {
    const auto outcome = plugin_->run("remove", {{"computer_id", id}}, kPodWait);
    if (!outcome.ok()) die("the plugin's remove failed: " + outcome.describe());
  }

  Json create_request(const std::string& id) const {
    return {{"computer_id", id},         {"temporary", false},
            {"network_access", true},    {"desktop_environment", false},
            {"workspace_directory", "/workspace"}, {"shell", "/bin/bash"},
            {"image", settings_.image}};
  }

  std::vector<std::string> kubectl_argv(const std::vector<std::string>& args) const {
    std::vector<std::string> argv = kubectl_prefix_;
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  vc::test::CommandResult kubectl_quiet(const std::vector<std::string>& args) const {
    return vc::test::run_command(kubectl_argv(args), 240s);
  }

  // One kubectl process, timed from its spawn to its exit.
  double kubectl(const std::vector<std::string>& args) const {
    const auto argv = kubectl_argv(args);
    const auto start = Clock::now();
    const auto result = vc::test::run_command(argv, 240s);
    const double ms = elapsed_ms(start);
    if (!result.ok()) die("kubectl failed: " + result.describe(argv));
    return ms;
  }

  double kubectl_exec_true(const std::string& pod) const {
    return kubectl({"exec", pod, "-c", kComputerContainer, "--", "true"});
  }

  static std::string trim(std::string text) { return vc::test::trim_trailing(std::move(text)); }

  // --- kubectl's copy -----------------------------------------------------------------------

  std::string twin_file(const std::string& twin) const {
    return (state_.path() / (twin + ".json")).string();
  }
  std::string twin_pod_file(const std::string& twin) const {
    return (state_.path() / (twin + "-pod.json")).string();
  }

  void write_twin(const std::string& computer_id, const std::string& twin) {
    const std::string name = pod_of(computer_id);
    const auto pod = kubectl_quiet({"get", "pod", name, "-o", "json"});
    const auto claim = kubectl_quiet({"get", "persistentvolumeclaim", name, "-o", "json"});
    if (!pod.ok() || !claim.ok()) die("cannot read the computer's pod and claim " + name);
    const Json pod_copy = copy_pod(Json::parse(pod.out), name, twin);
    const Json claim_copy = copy_claim(Json::parse(claim.out), twin);
    std::ofstream(twin_file(twin))
        << Json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", {claim_copy, pod_copy}}}.dump();
    std::ofstream(twin_pod_file(twin)) << pod_copy.dump();
  }

  // --- rows ---------------------------------------------------------------------------------

  // host: --exec-agent auto on the computer `id`; api_exec_host: --exec-agent off on another.
  void exec_rows(vc::test::McpClient& host, vc::test::McpClient& api_exec_host,
                 const std::string& id) {
    const std::string pod = pod_of(id);
    for (int i = 0; i < 3; ++i) kubectl_exec_true(pod);
    for (int i = 0; i < 3; ++i) plugin_true(id);
    for (int i = 0; i < settings_.runs; ++i) {
      // Rotate which goes first, so none always runs right after another.
      for (int turn = 0; turn < 4; ++turn) {
        switch ((i + turn) % 4) {
          case 0: mcp_exec_.ms.push_back(mcp_true(host)); break;
          case 1: mcp_api_exec_.ms.push_back(mcp_true(api_exec_host)); break;
          case 2: plugin_exec_.ms.push_back(plugin_true(id)); break;
          default: kubectl_exec_.ms.push_back(kubectl_exec_true(pod)); break;
        }
      }
    }
  }

  void inspect_rows(const std::string& id) {
    auto list_once = [&] {
      const auto start = Clock::now();
      const auto outcome = plugin_->run("list", Json::object(), 60s);
      const double ms = elapsed_ms(start);
      if (!outcome.ok()) die("the plugin's list failed: " + outcome.describe());
      return ms;
    };
    const std::vector<std::string> get_pod = {"get", "pod", pod_of(id), "-o", "json"};
    const std::vector<std::string> listing = {
        "get", "pods,persistentvolumeclaims,networkpolicies", "-l", "kilntainers=true", "-o",
        "json"};
    for (int i = 0; i < 3; ++i) {
      list_once();
      kubectl(get_pod);
      kubectl(listing);
    }
    for (int i = 0; i < settings_.runs; ++i) {
      for (int turn = 0; turn < 3; ++turn) {
        switch ((i + turn) % 3) {
          case 0: plugin_list_.ms.push_back(list_once()); break;
          case 1: kubectl_get_.ms.push_back(kubectl(get_pod)); break;
          default: kubectl_list_.ms.push_back(kubectl(listing)); break;
        }
      }
    }
  }

  void create_rows(const std::string& model_id) {
    const int runs = settings_.create_runs_or_default();
    for (int i = 0; i < runs; ++i) {
      progress("create run " + std::to_string(i + 1) + " of " + std::to_string(runs));
      for (int turn = 0; turn < 4; ++turn) {
        switch ((i + turn) % 4) {
          case 0: create_through_host("auto", mcp_create_); break;
          case 1: create_through_host("off", mcp_create_api_exec_); break;
          case 2: create_through_plugin(); break;
          default: create_with_kubectl(model_id); break;
        }
      }
    }
  }

  // A new host, initialized untimed; its first terminal_execute makes the computer (claim,
  // pod, readiness) and runs `true` in it — with the agent, copying the agent in first.
  void create_through_host(const std::string& exec_agent, Samples& into) {
    const std::string id = vc::test::unique_name("bench-create");
    auto host = start_host(id, exec_agent);
    into.ms.push_back(mcp_true(*host));
    close_host(host);
    plugin_remove(id);
  }

  void create_through_plugin() {
    const std::string id = vc::test::unique_name("bench-create");
    const auto start = Clock::now();
    plugin_create(id);
    plugin_true(id);
    plugin_create_.ms.push_back(elapsed_ms(start));
    plugin_remove(id);
  }

  void create_with_kubectl(const std::string& model_id) {
    const std::string twin = vc::test::unique_name("vc-bench-create");
    write_twin(model_id, twin);
    const auto start = Clock::now();
    kubectl({"create", "-f", twin_file(twin)});
    kubectl({"wait", "--for=condition=Ready", "pod/" + twin, "--timeout=180s"});
    kubectl_exec_true(twin);
    kubectl_create_.ms.push_back(elapsed_ms(start));
    kubectl({"delete", "-f", twin_file(twin), "--force", "--grace-period=0"});
  }

  // The first command after a restart or reset, tried again every 200 ms until it runs: the
  // operation's time plus the wait for that command, and what the failed attempts said.
  struct FirstCommand {
    explicit FirstCommand(std::string name) : total{std::move(name), {}} {}
    Samples total;
    int runs_failed_first = 0;  // runs whose first attempt failed
    std::string first_error;
  };

  template <typename Attempt>  // () -> std::optional<std::string>: the error, if any
  static void first_command_after(double operation_ms, FirstCommand& into, Attempt attempt) {
    const auto start = Clock::now();
    bool failed = false;
    while (auto error = attempt()) {
      if (!failed) {
        failed = true;
        ++into.runs_failed_first;
        if (into.first_error.empty()) into.first_error = error->substr(0, 300);
      }
      if (Clock::now() - start > 60s) die("no command ran within 60 s: " + *error);
      std::this_thread::sleep_for(200ms);
    }
    into.total.ms.push_back(operation_ms + elapsed_ms(start));
  }

  void restart_and_reset_rows(vc::test::McpClient& host, const std::string& id,
                              const std::string& twin) {
    const Json computer = {{"computer_id", id}};
    auto mcp_attempt = [&]() -> std::optional<std::string> {
      double ms = 0;
      return try_mcp_true(host, ms);
    };
    auto kubectl_attempt = [&]() -> std::optional<std::string> {
      const auto result = kubectl_quiet({"exec", twin, "-c", kComputerContainer, "--", "true"});
      if (result.ok()) return std::nullopt;
      return trim(result.err).substr(0, 300);
    };
    const int runs = settings_.create_runs_or_default();
    for (int i = 0; i < runs; ++i) {
      progress("restart and reset run " + std::to_string(i + 1) + " of " + std::to_string(runs));
      for (int turn = 0; turn < 4; ++turn) {
        double ms = 0;
        switch ((i + turn) % 4) {
          case 0:
            mcp_restart_.ms.push_back(ms = mcp_tool(host, "computer_restart", computer));
            first_command_after(ms, mcp_restart_first_, mcp_attempt);
            break;
          case 1:
            kubectl_restart_.ms.push_back(ms = recreate_twin(twin, twin_pod_file(twin)));
            first_command_after(ms, kubectl_restart_first_, kubectl_attempt);
            break;
          case 2:
            mcp_reset_.ms.push_back(ms = mcp_tool(host, "computer_factory_reset", computer));
            first_command_after(ms, mcp_reset_first_, mcp_attempt);
            break;
          default:
            kubectl_reset_.ms.push_back(ms = recreate_twin(twin, twin_file(twin)));
            first_command_after(ms, kubectl_reset_first_, kubectl_attempt);
            break;
        }
      }
    }
  }

  // What the plugin's restart (file: the pod) and factory reset (file: claim and pod) do, with
  // kubectl: delete at once and wait until gone, create again, wait until the pod is Ready.
  double recreate_twin(const std::string& twin, const std::string& file) {
    const auto start = Clock::now();
    kubectl({"delete", "-f", file, "--force", "--grace-period=0"});
    kubectl({"create", "-f", file});
    kubectl({"wait", "--for=condition=Ready", "pod/" + twin, "--timeout=180s"});
    return elapsed_ms(start);
  }

  static void read_rss(pid_t pid, long& rss_kb, long& hwm_kb) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmRSS:", 0) == 0) rss_kb = std::stol(line.substr(6));
      if (line.rfind("VmHWM:", 0) == 0) hwm_kb = std::stol(line.substr(6));
    }
  }

  void print() const {
    std::printf("| operation (kubernetes) | runs | median ms | min ms | p90 ms |\n");
    std::printf("|---|---|---|---|---|\n");
    print_row(mcp_exec_);
    print_row(mcp_api_exec_);
    print_row(plugin_exec_);
    print_row(kubectl_exec_);
    print_ratio("exec ratio: MCP round trip with the agent / kubectl exec (medians)", mcp_exec_,
                kubectl_exec_);
    print_ratio("exec ratio: MCP round trip with one API exec per command / kubectl exec "
                "(medians)",
                mcp_api_exec_, kubectl_exec_);
    print_ratio("exec: plugin op with the agent / MCP round trip with the agent (medians)",
                plugin_exec_, mcp_exec_);
    print_row(plugin_list_);
    print_row(kubectl_get_);
    print_row(kubectl_list_);
    print_ratio("inspect ratio: plugin list / kubectl get pod (medians)", plugin_list_,
                kubectl_get_);
    print_row(mcp_create_);
    print_row(mcp_create_api_exec_);
    print_row(plugin_create_);
    print_row(kubectl_create_);
    print_ratio("create ratio: MCP with the agent / kubectl (medians)", mcp_create_,
                kubectl_create_);
    print_ratio("create ratio: MCP with one API exec per command / kubectl (medians)",
                mcp_create_api_exec_, kubectl_create_);
    print_ratio("create ratio: plugin ops / kubectl (medians)", plugin_create_, kubectl_create_);
    print_row(mcp_restart_);
    print_row(mcp_restart_first_.total);
    print_row(kubectl_restart_);
    print_row(kubectl_restart_first_.total);
    print_ratio("restart ratio: MCP / kubectl (medians)", mcp_restart_, kubectl_restart_);
    print_ratio("restart to a first command, ratio: MCP / kubectl (medians)",
                mcp_restart_first_.total, kubectl_restart_first_.total);
    print_row(mcp_reset_);
    print_row(mcp_reset_first_.total);
    print_row(kubectl_reset_);
    print_row(kubectl_reset_first_.total);
    print_ratio("factory reset ratio: MCP / kubectl (medians)", mcp_reset_, kubectl_reset_);
    print_ratio("factory reset to a first command, ratio: MCP / kubectl (medians)",
                mcp_reset_first_.total, kubectl_reset_first_.total);
    std::printf("\nhost memory, idle with a warm computer: VmRSS %ld KiB, VmHWM (peak) %ld KiB "
                "(exec agent); VmRSS %ld KiB, VmHWM %ld KiB (--exec-agent off)\n",
                rss_kb_, hwm_kb_, api_exec_rss_kb_, api_exec_hwm_kb_);
    for (const FirstCommand* first : {&mcp_restart_first_, &kubectl_restart_first_,
                                      &mcp_reset_first_, &kubectl_reset_first_}) {
      if (first->runs_failed_first == 0) continue;
      std::printf("\n%s: the first attempt failed in %d of %zu runs, first with: %s\n",
                  first->total.name.c_str(), first->runs_failed_first, first->total.ms.size(),
                  first->first_error.c_str());
    }
  }

  Settings settings_;
  Clock::time_point started_ = Clock::now();
  vc::test::TempDirectory state_{"vc-bench-k8s"};
  std::string name_space_;
  std::vector<std::string> kubectl_prefix_;
  std::unique_ptr<vc::test::BackendDriver> plugin_;
  long rss_kb_ = 0;
  long hwm_kb_ = 0;
  long api_exec_rss_kb_ = 0;
  long api_exec_hwm_kb_ = 0;

  Samples mcp_exec_{"exec: terminal_execute `true` (MCP over stdio, exec agent)", {}};
  Samples mcp_api_exec_{"exec: terminal_execute `true` (MCP over stdio, `--exec-agent off`: one "
                        "API exec per command)",
                        {}};
  Samples plugin_exec_{"exec: plugin `exec` op of `true` (C ABI, exec agent)", {}};
  Samples kubectl_exec_{"exec: `kubectl exec <pod> -c computer -- true`", {}};
  Samples plugin_list_{"inspect: plugin `list` op (C ABI; pods, claims, policies by label)", {}};
  Samples kubectl_get_{"inspect: `kubectl get pod <pod> -o json`", {}};
  Samples kubectl_list_{"inspect: `kubectl get pods,persistentvolumeclaims,networkpolicies -l "
                        "kilntainers=true -o json`",
                        {}};
  Samples mcp_create_{"create: new computer to first terminal_execute `true` (MCP, exec agent)",
                      {}};
  Samples mcp_create_api_exec_{"create: new computer to first terminal_execute `true` (MCP, "
                               "`--exec-agent off`)",
                               {}};
  Samples plugin_create_{"create: plugin `create` + `exec` of `true` (C ABI)", {}};
  Samples kubectl_create_{"create: `kubectl create -f` (claim + pod) + `kubectl wait` Ready + "
                          "`kubectl exec … true`",
                          {}};
  Samples mcp_restart_{"restart: computer_restart (MCP)", {}};
  Samples kubectl_restart_{"restart: `kubectl delete pod --force --grace-period=0` + "
                           "`kubectl create -f` + `kubectl wait` Ready",
                           {}};
  FirstCommand mcp_restart_first_{"restart, then the first terminal_execute `true` that runs "
                                  "(MCP, tried every 200 ms)"};
  FirstCommand kubectl_restart_first_{"restart, then the first `kubectl exec … true` that runs "
                                      "(tried every 200 ms)"};
  Samples mcp_reset_{"factory reset: computer_factory_reset (MCP)", {}};
  Samples kubectl_reset_{"factory reset: `kubectl delete -f` (pod + claim) + `kubectl create -f` "
                         "+ `kubectl wait` Ready",
                         {}};
  FirstCommand mcp_reset_first_{"factory reset, then the first terminal_execute `true` that runs "
                                "(MCP, tried every 200 ms)"};
  FirstCommand kubectl_reset_first_{"factory reset, then the first `kubectl exec … true` that "
                                    "runs (tried every 200 ms)"};
};

}  // namespace

void run_kubernetes_benchmark(const Settings& settings) {
  if (settings.kubeconfig.empty() || settings.kubectl.empty()) {
    die("--engine kubernetes needs --kubeconfig FILE and --kubectl PATH "
        "(tests/benchmarks/run.sh passes both)");
  }
  KubernetesBench bench(settings);
  bench.prepare();
  bench.run();
}

}  // namespace vc::bench
