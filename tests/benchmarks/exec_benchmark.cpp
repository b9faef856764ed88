// exec_benchmark.cpp — how fast the host runs commands compared with the engine's own CLI.
//
// Rows (each measured alternately with its CLI counterpart in one run, so both see the same
// machine state):
//   exec     terminal_execute of `true` over stdio on a long-lived host with a warm computer,
//            through the exec agent (the default) and through the engine's exec
//            (`--exec-agent off`), against `<cli> exec <container> true`; and the plugin's exec
//            op through the C ABI with the agent (what the plugin and the agent's stream cost
//            without the host);
//   inspect  the plugin's `list` operation through the C ABI (one filtered list plus one batched
//            inspect), against `<cli> inspect <container>` and against the original's two CLI
//            calls for a listing (`ps --filter` then `inspect`);
//   create   a fresh computer to its first command: a new host's first terminal_execute of
//            `true` (create, start, readiness, exec), against `<cli> run -d` + `<cli> exec true`;
//   memory   the host's resident set size, idle, with a warm computer;
//   agent    20 commands at once through the plugin (wall time for all), 100 MB of output
//            (throughput), write_file + read_file of a 1 MiB file over MCP — each through the
//            agent and through the engine's exec.
// Prints a Markdown table of medians, the ratio, and the spread. `--engine kubernetes` measures
// the Kubernetes rows instead (kubernetes_bench.h), against kubectl.
//
//   vc_exec_benchmark --host-binary PATH --plugin-dir DIR [--engine docker|podman|kubernetes]
//                     [--runs N] [--create-runs M] [--image IMAGE]
//                     [--kubeconfig FILE --kubectl PATH]   (Kubernetes only)
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backend_driver.h"
#include "bench_common.h"
#include "container_engine.h"
#include "host_environment.h"
#include "kubernetes_bench.h"
#include "mcp_client.h"
#include "temp_directory.h"
#include "test_names.h"

namespace {

using vc::test::Json;
using vc::bench::Clock;
using vc::bench::Samples;
using vc::bench::Settings;
using vc::bench::die;
using vc::bench::elapsed_ms;
using vc::bench::print_ratio;
using vc::bench::print_row;
using namespace std::chrono_literals;

Settings parse(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--host-binary") settings.host_binary = value();
    else if (arg == "--plugin-dir") settings.plugin_dir = value();
    else if (arg == "--engine") settings.engine = value();
    else if (arg == "--runs") settings.runs = std::stoi(value());
    else if (arg == "--create-runs") settings.create_runs = std::stoi(value());
    else if (arg == "--image") settings.image = value();
    else if (arg == "--kubeconfig") settings.kubeconfig = value();
    else if (arg == "--kubectl") settings.kubectl = value();
    else die("unknown argument " + arg);
  }
  if (settings.host_binary.empty() || settings.plugin_dir.empty()) {
    die("usage: vc_exec_benchmark --host-binary PATH --plugin-dir DIR "
        "[--engine docker|podman|kubernetes] [--runs N] [--create-runs M] [--image IMAGE] "
        "[--kubeconfig FILE --kubectl PATH]");
  }
  if (settings.runs < 20) die("--runs must be at least 20");
  return settings;
}

const vc::test::ContainerEngine& engine_named(const std::string& name) {
  for (const auto* engine : vc::test::all_engines()) {
    if (engine->name == name) return *engine;
  }
  die("unknown engine " + name);
}

class Bench {
 public:
  Bench(Settings settings, const vc::test::ContainerEngine& engine)
      : settings_(std::move(settings)), engine_(engine) {}

  ~Bench() {
    for (const auto& id : computers_) engine_.remove_container("kilntainer-" + id);
    for (const auto& name : containers_) engine_.remove_container(name);
  }

  std::unique_ptr<vc::test::McpClient> start_host(const std::string& computer_id,
                                                  const std::string& exec_agent = "auto") {
    vc::test::McpClientOptions options;
    options.binary = settings_.host_binary;
    options.args = {"--backend",  engine_.backend, "--plugin-dir", settings_.plugin_dir,
                    "--state-dir", state_.path().string(), "--image", settings_.image,
                    "--log-level", "warn", "--exec-agent", exec_agent};
    for (const auto& arg : engine_.address_args()) options.args.push_back(arg);
    vc::test::Environment environment = engine_.cli_environment;
    environment["COMPUTER_ID"] = computer_id;
    options.environment = vc::test::host_environment(environment);
    options.report_on_failure = false;
    auto host = std::make_unique<vc::test::McpClient>(options);
    host->initialize();
    return host;
  }

  double mcp_true(vc::test::McpClient& host) {
    const auto start = Clock::now();
    const Json result = host.call_tool("terminal_execute", {{"args", {"true"}}}, 120s);
    const double ms = elapsed_ms(start);
    const Json payload = vc::test::McpClient::payload_of(result);
    if (vc::test::McpClient::is_error(result) || payload.value("exit_code", -1) != 0) {
      die("terminal_execute of true failed: " + result.dump() + "\n" + host.diagnostics());
    }
    return ms;
  }

  double cli(const std::vector<std::string>& args) {
    const auto start = Clock::now();
    const auto result = engine_.run_cli(args, 120s);
    const double ms = elapsed_ms(start);
    if (!result.ok()) die("CLI call failed: " + result.describe(args));
    return ms;
  }

  std::vector<Samples> exec_and_inspect(long& host_rss_kb, long& host_hwm_kb) {
    const std::string id = vc::test::unique_name("bench");
    computers_.push_back(id);
    const std::string container = "kilntainer-" + id;
    auto host = start_host(id);
    const std::string engine_exec_id = vc::test::unique_name("bench-engine-exec");
    computers_.push_back(engine_exec_id);
    auto engine_exec_host = start_host(engine_exec_id, "off");
    for (int i = 0; i < 3; ++i) mcp_true(*host);  // creates the computer, then warms up
    for (int i = 0; i < 3; ++i) mcp_true(*engine_exec_host);
    for (int i = 0; i < 3; ++i) cli({"exec", container, "true"});

    Samples mcp_exec{"exec: terminal_execute `true` (MCP over stdio, exec agent)", {}};
    Samples mcp_engine_exec{"exec: terminal_execute `true` (MCP over stdio, engine exec)", {}};
    Samples cli_exec{"exec: `" + engine_.cli + " exec <c> true` (CLI)", {}};
    for (int i = 0; i < settings_.runs; ++i) {
      // Rotate which goes first, so none always runs right after another.
      for (int turn = 0; turn < 3; ++turn) {
        switch ((i + turn) % 3) {
          case 0: mcp_exec.ms.push_back(mcp_true(*host)); break;
          case 1: mcp_engine_exec.ms.push_back(mcp_true(*engine_exec_host)); break;
          default: cli_exec.ms.push_back(cli({"exec", container, "true"})); break;
        }
      }
    }
    close_host(engine_exec_host);

    std::this_thread::sleep_for(2s);  // idle
    read_rss(host->pid(), host_rss_kb, host_hwm_kb);

    // Inspect-level: the plugin's list through the C ABI, in this process.
    const std::filesystem::path plugin =
        std::filesystem::path(settings_.plugin_dir) / engine_.plugin_file;
    vc::test::TempDirectory driver_state("vc-bench-driver");
    vc::test::BackendDriver backend(
        plugin, {{engine_.address_option, engine_.address()}, {"image", settings_.image}},
        driver_state.path());
    Samples api_list{"inspect: plugin `list` op (C ABI, filtered list + batched inspect)", {}};
    Samples cli_inspect{"inspect: `" + engine_.cli + " inspect <c>` (CLI)", {}};
    Samples cli_listing{"inspect: `" + engine_.cli + " ps -aq --filter label=...` + `" +
                            engine_.cli + " inspect <ids>` (the original's list, CLI)",
                        {}};
    auto list_once = [&] {
      const auto start = Clock::now();
      const auto outcome = backend.run("list", Json::object(), 60s);
      const double ms = elapsed_ms(start);
      if (!outcome.ok()) die("list failed: " + outcome.describe());
      return ms;
    };
    auto original_listing = [&] {
      const auto start = Clock::now();
      const auto ids = engine_.run_cli({"ps", "-aq", "--filter", "label=kilntainers.computer-id"});
      if (!ids.ok()) die("ps failed: " + ids.describe({"ps"}));
      std::vector<std::string> inspect{"inspect"};
      std::istringstream lines(ids.out);
      for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) inspect.push_back(line);
      }
      if (inspect.size() > 1) {
        const auto inspected = engine_.run_cli(inspect);
        if (!inspected.ok()) die("inspect failed: " + inspected.describe(inspect));
      }
      return elapsed_ms(start);
    };
    for (int i = 0; i < 3; ++i) list_once();
    for (int i = 0; i < settings_.runs; ++i) {
      api_list.ms.push_back(list_once());
      cli_inspect.ms.push_back(cli({"inspect", container}));
      cli_listing.ms.push_back(original_listing());
    }

    // The plugin's exec op with the agent, in this process: the host's share is the rest.
    Samples plugin_exec{"exec: plugin `exec` op of `true` (C ABI, exec agent)", {}};
    const Json request = {{"computer_id", id},    {"argv", {"true"}}, {"timeout_ms", 60'000},
                          {"output_limit", 1'048'576}};
    for (int i = 0; i < 3 + settings_.runs; ++i) {
      const auto start = Clock::now();
      const auto outcome = backend.run("exec", request, 60s);
      const double ms = elapsed_ms(start);
      if (!outcome.ok()) die("exec failed: " + outcome.describe());
      if (i >= 3) plugin_exec.ms.push_back(ms);
    }

    close_host(host);
    return {mcp_exec, mcp_engine_exec, cli_exec, api_list, cli_inspect, cli_listing, plugin_exec};
  }

  // 20 commands at once, 100 MB of output, and a 1 MiB file written and read, through the
  // agent and through the engine's exec.
  std::vector<Samples> agent_workloads() {
    std::vector<Samples> rows;
    for (const std::string mode : {"auto", "off"}) {
      const std::string path = mode == "auto" ? "exec agent" : "engine exec";
      const std::string id = vc::test::unique_name("bench-load");
      computers_.push_back(id);
      vc::test::TempDirectory driver_state("vc-bench-driver");
      vc::test::BackendDriver backend(
          std::filesystem::path(settings_.plugin_dir) / engine_.plugin_file,
          {{engine_.address_option, engine_.address()}, {"image", settings_.image},
           {"exec-agent", mode}},
          driver_state.path());
      const Json create = {{"computer_id", id}, {"temporary", false}, {"network_access", true},
                           {"desktop_environment", false}, {"workspace_directory", "/workspace"},
                           {"shell", "/bin/sh"}, {"image", settings_.image}};
      if (!backend.run("create", create, 180s).ok()) die("create failed");
      auto exec = [&](const std::string& command, std::uint64_t limit) {
        return Json{{"computer_id", id}, {"command", command}, {"shell", "/bin/sh"},
                    {"timeout_ms", 120'000}, {"output_limit", limit}};
      };
      for (int i = 0; i < 3; ++i) backend.run("exec", exec("true", 1024));

      Samples concurrent{"20 commands at once, wall time for all (" + path + ")", {}};
      for (int run = 0; run < 10; ++run) {
        const auto start = Clock::now();
        std::vector<std::shared_ptr<vc::test::PendingOp>> ops;
        for (int i = 0; i < 20; ++i) ops.push_back(backend.start("exec", exec("echo " + std::to_string(i), 1024)));
        for (auto& op : ops) {
          if (!op->wait(120s) || !op->outcome().ok()) die("a concurrent command failed");
        }
        concurrent.ms.push_back(elapsed_ms(start));
      }
      Samples throughput{"100 MB of output, ms (" + path + ")", {}};
      for (int run = 0; run < 5; ++run) {
        const auto start = Clock::now();
        const auto outcome = backend.run("exec", exec("head -c 100000000 /dev/zero", 200'000'000), 120s);
        if (!outcome.ok() || outcome.out.size() != 100'000'000) die("100 MB: " + outcome.describe());
        throughput.ms.push_back(elapsed_ms(start));
      }
      rows.push_back(std::move(concurrent));
      rows.push_back(std::move(throughput));

      auto host = start_host(id, mode);
      const std::string content(1'000'000, 'x');
      Samples write_read{"write_file + read_file of 1 MB over MCP (" + path + ")", {}};
      for (int run = 0; run < 3 + 10; ++run) {
        const auto start = Clock::now();
        const Json written = host->call_tool("write_file", {{"path", "/workspace/big.txt"}, {"content", content}}, 60s);
        const Json read = host->call_tool("read_file", {{"path", "/workspace/big.txt"}}, 60s);
        const double ms = elapsed_ms(start);
        if (vc::test::McpClient::is_error(written) || vc::test::McpClient::is_error(read) ||
            vc::test::McpClient::payload_of(read).value("content", std::string()) != content) {
          die("1 MB file round trip failed: " + written.dump().substr(0, 300) + read.dump().substr(0, 300));
        }
        if (run >= 3) write_read.ms.push_back(ms);
      }
      close_host(host);
      rows.push_back(std::move(write_read));
    }
    return rows;
  }

  std::vector<Samples> create_to_first_exec() {
    Samples mcp{"create: new computer to first terminal_execute `true` (MCP)", {}};
    Samples cli_path{"create: `" + engine_.cli + " run -d` + `" + engine_.cli +
                         " exec <c> true` (CLI)",
                     {}};
    for (int i = 0; i < settings_.create_runs_or_default(); ++i) {
      {
        const std::string id = vc::test::unique_name("bench-create");
        computers_.push_back(id);
        auto host = start_host(id);  // initialize is not part of the measurement
        mcp.ms.push_back(mcp_true(*host));
        close_host(host);
        engine_.remove_container("kilntainer-" + id);
      }
      {
        const std::string name = vc::test::unique_name("vc-test-bench-run");
        containers_.push_back(name);
        // `podman run --workdir` refuses a directory the image lacks (the API creates it), so
        // the Podman row starts in /tmp; the work measured is the same.
        const std::string workdir = engine_.name == "podman" ? "/tmp" : "/workspace";
        const auto start = Clock::now();
        const auto run = engine_.run_cli({"run", "-d", "--name", name, "--label", "vc-test=1",
                                          "--workdir", workdir, settings_.image, "tail", "-f",
                                          "/dev/null"},
                                         120s);
        if (!run.ok()) die("run failed: " + run.describe({"run"}));
        cli({"exec", name, "true"});
        cli_path.ms.push_back(elapsed_ms(start));
        engine_.remove_container(name);
      }
    }
    return {mcp, cli_path};
  }

 private:
  static void close_host(std::unique_ptr<vc::test::McpClient>& host) {
    const auto status = host->close(30s);
    if (!status.exited || status.code != 0) {
      std::cerr << "warning: the host ended with " << status.describe() << '\n';
    }
    host.reset();
  }

  static void read_rss(pid_t pid, long& rss_kb, long& hwm_kb) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("VmRSS:", 0) == 0) rss_kb = std::stol(line.substr(6));
      if (line.rfind("VmHWM:", 0) == 0) hwm_kb = std::stol(line.substr(6));
    }
  }

  Settings settings_;
  const vc::test::ContainerEngine& engine_;
  vc::test::TempDirectory state_{"vc-bench-state"};
  std::vector<std::string> computers_;
  std::vector<std::string> containers_;
};

}  // namespace

int main(int argc, char** argv) {
  const Settings settings = parse(argc, argv);
  if (settings.engine == "kubernetes") {
    vc::bench::run_kubernetes_benchmark(settings);
    return 0;
  }
  const auto& engine = engine_named(settings.engine);
  if (!engine.socket_answers()) {
    die(engine.socket_path + " does not answer; run `" + engine.setup_command + "` first");
  }
  Bench bench(settings, engine);
  long rss_kb = 0;
  long hwm_kb = 0;
  const auto warm = bench.exec_and_inspect(rss_kb, hwm_kb);
  const auto create = bench.create_to_first_exec();
  const auto workloads = bench.agent_workloads();

  std::printf("| operation (%s) | runs | median ms | min ms | p90 ms |\n", engine.name.c_str());
  std::printf("|---|---|---|---|---|\n");
  print_row(warm[0]);
  print_row(warm[1]);
  print_row(warm[2]);
  print_row(warm[6]);
  print_ratio("exec ratio: MCP round trip with the agent / CLI (medians)", warm[0], warm[2]);
  print_ratio("exec ratio: MCP round trip with the engine's exec / CLI (medians)", warm[1], warm[2]);
  print_ratio("exec: plugin op with the agent / MCP round trip with the agent (medians)", warm[6], warm[0]);
  print_row(warm[3]);
  print_row(warm[4]);
  print_row(warm[5]);
  print_ratio("inspect ratio: plugin list / CLI inspect (medians)", warm[3], warm[4]);
  print_row(create[0]);
  print_row(create[1]);
  print_ratio("create ratio: MCP / CLI (medians)", create[0], create[1]);
  for (const auto& row : workloads) print_row(row);
  std::printf("\nhost memory, idle with a warm computer: VmRSS %ld KiB, VmHWM (peak) %ld KiB\n",
              rss_kb, hwm_kb);
  return 0;
}
