// validate_plugin_command.cpp — see validate_plugin_command.h.
#include "operator/validate_plugin_command.h"

#include <cstdio>
#include <iostream>
#include <memory>
#include <random>
#include <string>

#include <uv.h>

#include "backend_proxy/backend.h"
#include "cli/command_line.h"
#include "cli/state_directory.h"
#include "operator/conformance_script.h"
#include "operator/misbehaviour_log.h"
#include "operator/plugin_check_report.h"
#include "operator/plugin_load_checks.h"
#include "operator/validate_plugin_arguments.h"
#include "server/logging_setup.h"
#include "server/server_parts.h"
#include "server/signal_watcher.h"

namespace vc::operator_cli {
namespace {

// The scratch computer: a prefix nobody uses for real computers, and a random part so that two
// runs (or a run after an interrupted one) never meet.
std::string scratch_computer_id() {
  std::random_device random;
  char suffix[9];
  std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(random()));
  return std::string("vc-validate-") + suffix;
}

void check_options(const plugins::PluginInfo& info, const ValidatePluginArguments& arguments,
                   PluginCheckReport& report) {
  if (arguments.options_problem) {
    report.fail("descriptor.options", *arguments.options_problem);
    return;
  }
  std::string names;
  for (const auto& option : info.options) names += (names.empty() ? "--" : ", --") + option.name;
  report.pass("descriptor.options", names.empty() ? "none declared" : names);
}

// [loop-thread] The backend instance, the script, and a shutdown that waits for the plugin.
void run_conformance(const std::shared_ptr<plugins::PluginModule>& module,
                     const ValidatePluginArguments& arguments,
                     const std::shared_ptr<MisbehaviourLog>& log, PluginCheckReport& report) {
  uv_loop_t loop;
  uv_loop_init(&loop);
  {
    const auto state_dir = cli::plugin_state_dir(arguments.state_dir, module->info().id);
    auto created = backend_proxy::Backend::create(&loop, module, arguments.backend_options, state_dir);
    if (!created) {
      report.fail("instance.create", created.error().message);
    } else {
      report.pass("instance.create", "state directory " + state_dir.string());
      std::shared_ptr<backend_proxy::Backend> backend = std::move(created).value();
      ScriptSettings settings;
      settings.computer_id = scratch_computer_id();
      settings.op_timeout_ms = static_cast<uint64_t>(arguments.op_timeout_s) * 1000;
      auto script = std::make_unique<ConformanceScript>(&loop, backend, log, settings, report);
      // Ctrl-C still removes the scratch computer before the command exits.
      server::SignalWatcher signals(&loop, [&script](int signal_number) {
        script->interrupt("interrupted by signal " + std::to_string(signal_number));
      });
      script->start([&report, backend, &signals]() {
        signals.close([] {});
        const size_t owed = backend->pending_ops();
        if (owed == 0) {
          report.pass("instance.shutdown", "no op pending; the instance is destroyed");
        } else {
          report.fail("instance.shutdown",
                      std::to_string(owed) + " op(s) never completed: the instance cannot be "
                                             "destroyed safely and is abandoned");
        }
        backend->shutdown(server::kBackendShutdownDeadlineMs, [] {});
      });
      uv_run(&loop, UV_RUN_DEFAULT);
    }
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // close callbacks of what was just released
  server::close_loop(&loop);
}

int print_report(const PluginCheckReport& report, const ValidatePluginArguments& arguments) {
  const std::string subject = arguments.plugin_file.string();
  if (arguments.json) {
    std::cout << report.to_json(subject).dump(2) << std::endl;
  } else {
    report.print_text(std::cout, subject);
  }
  return report.all_passed() ? 0 : 1;
}

}  // namespace

int run_validate_plugin_command(int argc, const char* const* argv) {
  // The report is the output; the host's own log stays on stderr at warnings, where the
  // plugin's warnings and the proxy's "plugin misbehaving" lines also appear.
  if (auto failure = server::configure_logging("warn", std::nullopt)) {
    return cli::report_config_error(std::cerr, failure->message);
  }
  auto file = plugin_file_argument(argc, argv);
  if (!file) {
    // No FILE in its place: --help, a usage error, or FILE after other options.
    auto parsed = parse_validate_plugin_arguments(argc, argv, nullptr, std::cout, std::cerr);
    if (!parsed.arguments) return parsed.exit_code;
    file = parsed.arguments->plugin_file;
  }

  const auto log = MisbehaviourLog::install();
  PluginCheckReport report;
  const auto module = load_plugin_with_checks(*file, report);
  auto parsed = parse_validate_plugin_arguments(argc, argv, module ? &module->info() : nullptr,
                                                std::cout, std::cerr);
  if (!parsed.arguments) return parsed.exit_code;
  const ValidatePluginArguments& arguments = *parsed.arguments;
  if (!module) {
    const int exit_code = print_report(report, arguments);
    std::cerr << cli::kProgramName << ": error: " << arguments.plugin_file.string()
              << " is not a loadable backend plugin: " << report.checks().back().detail
              << std::endl;
    return exit_code;
  }
  check_descriptor_fields(module->info(), report);
  check_options(module->info(), arguments, report);
  if (!arguments.options_problem) run_conformance(module, arguments, log, report);
  return print_report(report, arguments);
}

}  // namespace vc::operator_cli
