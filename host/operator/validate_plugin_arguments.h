// validate_plugin_arguments.h — the command line of
// `mcp-virtual-computer validate-plugin FILE.so [--json] [--op-timeout S] [--state-dir D]
//  [--<plugin option> VALUE ...]`.
//
// The plugin's own options are known only once FILE is loaded, so the caller loads it first
// (FILE is the first argument after the subcommand) and then parses the whole line with them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>

#include "cli/command_line.h"
#include "common/json.h"
#include "plugin_loader/plugin_module.h"

namespace vc::operator_cli {

inline constexpr int64_t kDefaultOpTimeoutS = 30;

struct ValidatePluginArguments {
  std::filesystem::path plugin_file;
  bool json = false;
  int64_t op_timeout_s = kDefaultOpTimeoutS;
  std::filesystem::path state_dir;  // the plugin gets <state_dir>/<plugin id>
  Json backend_options = Json::object();
  // Set when the plugin's declared options could not be registered (their names or defaults
  // are invalid): the reason, for the report's options.declared check.
  std::optional<std::string> options_problem;
};

struct ValidatePluginParse {
  std::optional<ValidatePluginArguments> arguments;  // absent: exit with exit_code
  int exit_code = 0;
};

// [loop-thread] The FILE argument, if the line has one where it must be: argv[2].
std::optional<std::filesystem::path> plugin_file_argument(int argc, const char* const* argv);

// [loop-thread] Parses argv (argv[1] is "validate-plugin"). `plugin` is the loaded module's
// description, or null when it did not load: its options are then unknown, and option-like
// arguments are tolerated so that the load failure is what gets reported. --help and usage
// errors are answered here (exit 0 and 2).
ValidatePluginParse parse_validate_plugin_arguments(int argc, const char* const* argv,
                                                    const plugins::PluginInfo* plugin,
                                                    std::ostream& out, std::ostream& err);

}  // namespace vc::operator_cli
