// process_benchmark.cpp — processes that outlive a call (docs/processes.md) through a container
// plugin's processes extension (C ABI, in this process): how soon a started process's first
// output is back, a read's round trip, input written and its echo read back, and how fast the
// computer takes in the output of a process printing as fast as it can, against the same output
// thrown away by an exec in the same run.
//
//   vc_process_benchmark --plugin-dir DIR [--engine docker|podman] [--runs N]
//
// Single-threaded: one thing measured at a time. Prints a Markdown table.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "backend_driver.h"
#include "bench_common.h"
#include "container_engine.h"
#include "temp_directory.h"
#include "test_names.h"

namespace {

using namespace std::chrono_literals;
using vc::bench::Clock;
using vc::bench::die;
using vc::bench::elapsed_ms;
using vc::bench::print_row;
using vc::bench::Samples;
using vc::test::Json;

constexpr long long kFloodBytes = 200'000'000;

struct Options {
  std::string plugin_dir;
  std::string engine = "docker";
  int runs = 30;
};

Options parse(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) die(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--plugin-dir") options.plugin_dir = value();
    else if (arg == "--engine") options.engine = value();
    else if (arg == "--runs") options.runs = std::stoi(value());
    else die("unknown argument " + arg);
  }
  if (options.plugin_dir.empty()) die("--plugin-dir is required");
  if (options.runs < 3 || options.runs > 500) die("--runs must be 3-500");
  return options;
}

class ProcessBench {
 public:
  ProcessBench(const Options& options, const vc::test::ContainerEngine& engine)
      : options_(options),
        engine_(engine),
        state_("vc-bench-processes"),
        id_(vc::test::unique_name("bench-proc")) {
    backend_ = std::make_unique<vc::test::BackendDriver>(
        std::filesystem::path(options_.plugin_dir) / engine_.plugin_file,
        Json{{engine_.address_option, engine_.address()}}, state_.path());
    run_or_die("create", {{"computer_id", id_}, {"temporary", false}, {"network_access", true},
                          {"desktop_environment", false}, {"workspace_directory", "/workspace"},
                          {"shell", "/bin/sh"}, {"image", "debian:bookworm-slim"}});
  }
  ~ProcessBench() {
    if (backend_) backend_->run("remove", {{"computer_id", id_}}, 120s);
    engine_.remove_container("kilntainer-" + id_);
  }

  std::vector<Samples> measure() {
    // The first call starts the supervisor in the computer: not what a later call costs.
    const std::string warm = start("echo warm", 2000)["process"].value("process_id", "");
    Samples first_output{"`start_process` until its first output is back (`echo` then `sleep`)", {}};
    Samples read_idle{"`read_process` round trip (nothing new, `wait_ms` 0)", {}};
    Samples echo{"`write_process` of a line to `cat` until the line is back", {}};
    Samples exec{"`exec` round trip of `true` (for comparison)", {}};
    const std::string cat = start("cat", 0)["process"].value("process_id", "");
    for (int run = 0; run < options_.runs; ++run) {
      auto started_at = Clock::now();
      Json started = start("echo ready; sleep 30", 0);
      const std::string id = started["process"].value("process_id", "");
      while (started["output"].value("stdout", "").empty()) {
        started = run_or_die("read_process", {{"computer_id", id_}, {"process_id", id}, {"wait_ms", 5000}});
      }
      first_output.ms.push_back(elapsed_ms(started_at));
      run_or_die("kill_process", {{"computer_id", id_}, {"process_id", id}, {"signal", "KILL"}});

      started_at = Clock::now();
      run_or_die("read_process", {{"computer_id", id_}, {"process_id", cat}, {"wait_ms", 0}});
      read_idle.ms.push_back(elapsed_ms(started_at));

      started_at = Clock::now();
      const Json echoed = run_or_die("write_process", {{"computer_id", id_}, {"process_id", cat},
                                                       {"input", "line\n"}, {"wait_ms", 5000}});
      echo.ms.push_back(elapsed_ms(started_at));
      if (echoed["output"].value("stdout", "") != "line\n") die("cat answered " + echoed.dump());

      started_at = Clock::now();
      run_or_die("exec", {{"computer_id", id_}, {"argv", Json::array({"true"})}, {"timeout_ms", 30'000},
                          {"output_limit", 1024}});
      exec.ms.push_back(elapsed_ms(started_at));
    }
    (void)warm;
    return {first_output, read_idle, echo, exec};
  }

  // MB/s of a process printing kFloodBytes as fast as it can: taken in by the supervisor (ring
  // and log file), against the same bytes thrown away by an exec's shell.
  std::vector<Samples> throughput() {
    Samples supervised{"output taken in by the supervisor (ring + log file), MB/s", {}};
    Samples discarded{"the same output to /dev/null in an `exec`, MB/s", {}};
    const std::string flood = "head -c " + std::to_string(kFloodBytes) + " /dev/zero";
    for (int run = 0; run < 5; ++run) {
      auto started_at = Clock::now();
      Json state = start(flood, 30'000);
      const std::string id = state["process"].value("process_id", "");
      while (state["process"].value("state", "") == "running") {
        state = run_or_die("read_process", {{"computer_id", id_}, {"process_id", id}, {"wait_ms", 30'000},
                                            {"max_bytes", 1}});
      }
      supervised.ms.push_back(static_cast<double>(kFloodBytes) / 1000.0 / elapsed_ms(started_at));

      started_at = Clock::now();
      run_or_die("exec", {{"computer_id", id_}, {"command", flood + " > /dev/null"}, {"shell", "/bin/sh"},
                          {"timeout_ms", 120'000}, {"output_limit", 1024}});
      discarded.ms.push_back(static_cast<double>(kFloodBytes) / 1000.0 / elapsed_ms(started_at));
    }
    return {supervised, discarded};
  }

 private:
  Json start(const std::string& command, int wait_ms) {
    return run_or_die("start_process", {{"computer_id", id_}, {"command", command}, {"wait_ms", wait_ms},
                                        {"max_bytes", 65536}});
  }
  Json run_or_die(const std::string& op, const Json& request) {
    const auto outcome = backend_->run(op, request, 300s);
    if (!outcome.ok()) die(op + " failed: " + outcome.describe());
    return outcome.document;
  }

  const Options& options_;
  const vc::test::ContainerEngine& engine_;
  vc::test::TempDirectory state_;
  std::string id_;
  std::unique_ptr<vc::test::BackendDriver> backend_;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const auto& engine = options.engine == "podman" ? vc::test::podman_engine()
                                                  : vc::test::docker_engine();
  if (!engine.socket_answers()) {
    die(engine.socket_path + " does not answer; run `" + engine.setup_command + "` first");
  }
  ProcessBench bench(options, engine);
  const auto latency = bench.measure();
  const auto rates = bench.throughput();
  std::printf("| operation (%s) | runs | median ms | min ms | p90 ms |\n", engine.name.c_str());
  std::printf("|---|---|---|---|---|\n");
  for (const auto& row : latency) print_row(row);
  std::printf("\n| throughput (%s, %lld MB) | runs | median | min | p90 |\n", engine.name.c_str(),
              kFloodBytes / 1'000'000);
  std::printf("|---|---|---|---|---|\n");
  for (const auto& row : rates) print_row(row);
  return 0;
}
