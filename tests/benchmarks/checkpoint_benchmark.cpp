// checkpoint_benchmark.cpp — checkpoint, restore and fork of a headless and of a desktop
// computer through a container plugin's checkpoints extension (C ABI, in this process), against
// the engine CLI's `commit` followed by `run` of the committed image in the same run.
//
//   vc_checkpoint_benchmark --plugin-dir DIR [--engine docker|podman] [--runs N]
//
// Each computer carries 20 MiB of files written before the first checkpoint. A restore's time
// runs until the op completes, which is when the computer answers commands again and, for a
// desktop computer, its screen, VNC and desktop bridge are up with Xfce as it was.
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

struct Options {
  std::string plugin_dir;
  std::string engine = "docker";
  int runs = 5;
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
  if (options.runs < 1 || options.runs > 15) die("--runs must be 1-15");
  return options;
}

class CheckpointBench {
 public:
  CheckpointBench(const Options& options, const vc::test::ContainerEngine& engine)
      : options_(options), engine_(engine) {}
  ~CheckpointBench() {
    for (const auto& id : computers_) {
      if (backend_) backend_->run("remove", {{"computer_id", id}}, 120s);
      engine_.remove_container("kilntainer-" + id);
    }
  }

  std::vector<Samples> measure(const std::string& kind, const std::string& image, bool desktop) {
    vc::test::TempDirectory state("vc-bench-checkpoints");
    backend_ = std::make_unique<vc::test::BackendDriver>(
        std::filesystem::path(options_.plugin_dir) / engine_.plugin_file,
        Json{{engine_.address_option, engine_.address()}, {"image", image}}, state.path());
    const std::string id = fresh_computer();
    run_or_die("create", {{"computer_id", id}, {"temporary", false}, {"network_access", true},
                          {"desktop_environment", desktop}, {"workspace_directory", "/workspace"},
                          {"shell", "/bin/sh"}, {"image", image}});
    run_or_die("exec", {{"computer_id", id}, {"command", "head -c 20971520 /dev/urandom > /workspace/data.bin"},
                        {"shell", "/bin/sh"}, {"timeout_ms", 120'000}, {"output_limit", 1024}});

    Samples create{kind + ": `create_checkpoint` (20 MiB of new files)", {}};
    Samples restore{kind + ": `restore_checkpoint` until the computer is back" +
                        std::string(desktop ? " with its desktop live" : ""),
                    {}};
    Samples fork{kind + ": `fork_checkpoint` until the new computer answers", {}};
    Samples cli_commit{kind + ": `" + engine_.cli + " commit` (CLI)", {}};
    Samples cli_run{kind + ": `" + engine_.cli + " run -d` of the committed image (CLI)", {}};
    for (int run = 0; run < options_.runs; ++run) {
      const std::string name = "bench-" + std::to_string(run);
      auto start = Clock::now();
      run_or_die("create_checkpoint", {{"computer_id", id}, {"name", name}});
      create.ms.push_back(elapsed_ms(start));

      start = Clock::now();
      run_or_die("restore_checkpoint", {{"computer_id", id}, {"name", name}});
      restore.ms.push_back(elapsed_ms(start));

      const std::string fork_id = fresh_computer();
      start = Clock::now();
      run_or_die("fork_checkpoint", {{"computer_id", id}, {"new_computer_id", fork_id}, {"name", name}});
      fork.ms.push_back(elapsed_ms(start));
      run_or_die("remove", {{"computer_id", fork_id}});
      run_or_die("delete_checkpoint", {{"computer_id", id}, {"name", name}});

      const std::string reference = "localhost/vc-bench-commit:" + std::to_string(run);
      const std::string copy = "vc-bench-run-" + fork_id;
      start = Clock::now();
      cli_or_die({"commit", "kilntainer-" + id, reference});
      cli_commit.ms.push_back(elapsed_ms(start));
      std::vector<std::string> run_args = {"run", "-d", "--name", copy, reference};
      if (!desktop) run_args.insert(run_args.end(), {"tail", "-f", "/dev/null"});
      start = Clock::now();
      cli_or_die(run_args);
      cli_run.ms.push_back(elapsed_ms(start));
      engine_.remove_container(copy);
      engine_.run_cli({"rmi", "-f", reference});
    }
    run_or_die("remove", {{"computer_id", id}});
    backend_.reset();
    return {create, restore, fork, cli_commit, cli_run};
  }

 private:
  std::string fresh_computer() {
    computers_.push_back(vc::test::unique_name("bench-cp"));
    return computers_.back();
  }
  void run_or_die(const std::string& op, const Json& request) {
    const auto outcome = backend_->run(op, request, 300s);
    if (!outcome.ok()) die(op + " failed: " + outcome.describe());
  }
  void cli_or_die(const std::vector<std::string>& args) {
    const auto result = engine_.run_cli(args, 300s);
    if (!result.ok()) die(result.describe(args));
  }

  const Options& options_;
  const vc::test::ContainerEngine& engine_;
  std::unique_ptr<vc::test::BackendDriver> backend_;
  std::vector<std::string> computers_;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  const auto& engine = options.engine == "podman" ? vc::test::podman_engine()
                                                  : vc::test::docker_engine();
  if (!engine.socket_answers()) {
    die(engine.socket_path + " does not answer; run `" + engine.setup_command + "` first");
  }
  CheckpointBench bench(options, engine);
  const auto headless = bench.measure("headless", "debian:bookworm-slim", false);
  const auto desktop = bench.measure("desktop", "mcp-virtual-computer-desktop:bookworm", true);
  std::printf("| operation (%s) | runs | median ms | min ms | p90 ms |\n", engine.name.c_str());
  std::printf("|---|---|---|---|---|\n");
  for (const auto& row : headless) print_row(row);
  for (const auto& row : desktop) print_row(row);
  return 0;
}
