// run_host.cpp — see run_host.h.
#include "launcher/run_host.h"

#include <iostream>
#include <memory>
#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "cli/command_line.h"
#include "operator/computers_command.h"
#include "operator/validate_plugin_command.h"
#include "plugin_loader/plugin_discovery.h"
#include "plugin_loader/plugin_search.h"
#include "server/fatal_signal.h"
#include "server/http_server.h"
#include "server/logging_setup.h"
#include "server/memory_policy.h"
#include "server/standard_descriptors.h"
#include "server/stdio_server.h"

namespace vc::launcher {
namespace {

struct LoadedPlugin {
  std::shared_ptr<plugins::PluginModule> module;  // null when loading failed
  std::string failure;
};

// The backend named on the command line. Not attempted for `plugins` (it loads everything
// itself) or when phase 1 could not read the line (phase 2 will report why).
LoadedPlugin load_backend(const cli::Prescan& prescan) {
  if (prescan.plugins_command || !prescan.readable) return {nullptr, "no backend was requested"};
  auto module = plugins::find_and_load_backend(prescan.backend,
                                               plugins::plugin_search_path(prescan.plugin_dirs));
  if (!module) return {nullptr, module.error().message};
  return {std::move(module).value(), {}};
}

int list_plugins(const cli::ServerConfig& config) {
  const auto search_path = plugins::plugin_search_path(config.plugin_dirs);
  std::cout << plugins::format_discovery(plugins::discover_plugins(search_path));
  std::cout.flush();
  return 0;
}

// The process-wide setup that must come before anything can log or crash.
void prepare_process() {
  server::set_memory_policy();
  server::open_missing_standard_descriptors();
  server::install_fatal_signal_report();  // writes to descriptor 2, which now exists
  server::install_stderr_logging();  // before anything can log: stdout is the protocol's
}

}  // namespace

int run_mcp_virtual_computer(int argc, char** argv, const server::ServerExtension* extension) {
  prepare_process();

  // validate-plugin names its plugin file itself and has a command line of its own.
  if (argc >= 2 && std::string_view(argv[1]) == cli::kValidatePluginCommand) {
    return operator_cli::run_validate_plugin_command(argc, argv);
  }
  const cli::Prescan prescan = cli::prescan_command_line(argc, argv);
  LoadedPlugin plugin = load_backend(prescan);
  if (!plugin.module && prescan.readable && !prescan.plugins_command && !prescan.help_requested) {
    return cli::report_config_error(std::cerr, plugin.failure);
  }

  const auto parsed = cli::parse_command_line(
      argc, argv, plugin.module ? &plugin.module->info() : nullptr, plugin.failure, std::cout,
      std::cerr);
  if (!parsed.command_line) return parsed.exit_code;
  const cli::CommandLine& command_line = *parsed.command_line;
  if (command_line.command == cli::Command::list_plugins) return list_plugins(command_line.config);
  if (!plugin.module) return cli::report_config_error(std::cerr, plugin.failure);

  const bool operator_command = command_line.command == cli::Command::computers;
  // The operator reads the command's own output on the terminal: the server's progress lines
  // would only be noise there, so its default level is warn.
  const std::string log_level = operator_command && command_line.config.log_level == "info"
                                    ? "warn"
                                    : command_line.config.log_level;
  if (auto failure = server::configure_logging(log_level, command_line.config.log_file)) {
    return cli::report_config_error(std::cerr, failure->message);
  }
  for (const auto& notice : command_line.notices) spdlog::info("{}", notice);
  if (operator_command) {
    return operator_cli::run_computers_command(command_line.config, command_line.computers,
                                               std::move(plugin.module));
  }
  if (command_line.config.transport == cli::Transport::http) {
    return server::HttpServer::run(command_line.config, std::move(plugin.module), extension);
  }
  return server::StdioServer::run(command_line.config, std::move(plugin.module), extension);
}

}  // namespace vc::launcher
