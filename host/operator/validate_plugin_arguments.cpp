// validate_plugin_arguments.cpp — see validate_plugin_arguments.h.
#include "operator/validate_plugin_arguments.h"

#include <ostream>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/plugin_options.h"
#include "cli/state_directory.h"

namespace vc::operator_cli {
namespace {

constexpr const char* kDescription =
    "Check a backend plugin file against the backend ABI, the way the server loads and drives "
    "it: the loader's checks, the descriptor and options, then every operation on a scratch "
    "computer (vc-validate-<random>) that is removed at the end. Prints one line per check; "
    "exits 0 when every check passed, 1 when one failed, 2 for usage errors. Options after "
    "FILE that the plugin declares are passed to it as the server would.";

constexpr int64_t kMaxOpTimeoutS = 3600;

}  // namespace

std::optional<std::filesystem::path> plugin_file_argument(int argc, const char* const* argv) {
  if (argc < 3) return std::nullopt;
  const std::string_view file = argv[2];
  if (file.empty() || file.front() == '-') return std::nullopt;
  return std::filesystem::path(file);
}

ValidatePluginParse parse_validate_plugin_arguments(int argc, const char* const* argv,
                                                    const plugins::PluginInfo* plugin,
                                                    std::ostream& out, std::ostream& err) {
  CLI::App app(kDescription, std::string(cli::kProgramName) + " " + cli::kValidatePluginCommand);
  app.get_formatter()->column_width(36);
  ValidatePluginArguments arguments;
  std::string plugin_file;
  std::string state_dir;
  app.add_option("FILE", plugin_file, "The plugin's .so file")->required();
  app.add_flag("--json", arguments.json, "Print the report as one JSON document");
  app.add_option("--op-timeout", arguments.op_timeout_s,
                 "Seconds each operation may take before it counts as never completed")
      ->check(CLI::Range(int64_t{1}, kMaxOpTimeoutS))
      ->capture_default_str();
  CLI::Option* state_dir_option =
      app.add_option("--state-dir", state_dir,
                     "Directory for the plugin's state; it gets <dir>/<plugin id>")
          ->default_str(cli::default_state_dir().string());

  cli::PluginOptions plugin_options;
  if (plugin == nullptr) {
    app.allow_extras();  // unknown options: the load failure is what the report says
  } else if (auto failure = plugin_options.add_to(app, *plugin)) {
    arguments.options_problem = failure->message;
    app.allow_extras();
  } else {
    app.footer("Options of the " + plugin->name + " backend are listed above under its name.");
  }

  try {
    // argv[1] ("validate-plugin") takes the place of the program name.
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::Success& done) {
    app.exit(done, out, err);
    return {std::nullopt, 0};
  } catch (const CLI::ParseError& error) {
    app.exit(error, out, err);
    return {std::nullopt, 2};
  }
  arguments.plugin_file = plugin_file;
  arguments.state_dir = state_dir_option->count() > 0 ? std::filesystem::path(state_dir)
                                                      : cli::default_state_dir();
  if (plugin != nullptr && !arguments.options_problem) {
    arguments.backend_options = plugin_options.values();
  }
  return {std::move(arguments), 0};
}

}  // namespace vc::operator_cli
