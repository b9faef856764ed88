// command_line.h — the two-phase command line.
//
// The backend's options are only known once its plugin is loaded, and which plugin to load is
// itself on the command line. So:
//   phase 1  prescan_command_line(): reads --backend, --plugin-dir and whether the `plugins`
//            subcommand or --help was asked for, tolerating every option it does not know;
//   (main)   loads the plugin;
//   phase 2  parse_command_line(): the full parser (host options plus the plugin's, in a group
//            named after the backend), validation in the original's order, exit codes.
//
// Exit codes: 0 after --help/--version; 2 for usage errors (unknown option, a value of the
// wrong type, a bad choice), with CLI11's message; 1 for configuration errors, as
// "mcp-virtual-computer: error: <message>".
#pragma once

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "cli/server_config.h"
#include "plugin_loader/plugin_module.h"

namespace vc::cli {

inline constexpr const char* kProgramName = "mcp-virtual-computer";
// The subcommand main runs before this command line is parsed (operator/validate_plugin_command.h).
inline constexpr const char* kValidatePluginCommand = "validate-plugin";

struct Prescan {
  std::string backend = "docker";
  std::vector<std::filesystem::path> plugin_dirs;
  bool plugins_command = false;  // `mcp-virtual-computer plugins ...`
  bool help_requested = false;   // -h, --help or --version: answered even without a plugin
  bool readable = true;          // false: phase 1 could not read the line; phase 2 will say why
};

Prescan prescan_command_line(int argc, const char* const* argv);

enum class Command { serve, list_plugins, computers };

// `mcp-virtual-computer computers ACTION ...`: the operator's command line.
enum class ComputersAction {
  list,
  prepare,
  create,             // `create ID`: a new computer (with the backend's options, e.g. --mount)
  restart,
  reset,
  remove,
  exec,
  checkpoint,         // `checkpoint ID NAME`: save the computer's files as NAME
  checkpoints,        // `checkpoints ID`: list them
  restore,            // `restore ID NAME`: its files back to NAME (asks unless --yes)
  fork,               // `fork ID NEW-ID [--checkpoint NAME]`: a new computer from them
  checkpoint_delete,  // `checkpoint-delete ID NAME`
};

struct ComputersCommand {
  ComputersAction action = ComputersAction::list;
  std::string computer_id;         // all but list
  std::vector<std::string> argv;   // exec: the command and its arguments
  bool json = false;               // --json: machine-readable output
  bool yes = false;                // --yes: no confirmation prompt (reset, delete, restore)
  bool forward_stdin = false;      // exec --stdin: the command reads this process's stdin
  std::optional<std::string> working_directory;  // exec --workdir
  // checkpoint, restore, checkpoint-delete: the checkpoint's name; fork --checkpoint: the one
  // to start from (absent: the current files). Checked against the name rule when parsing.
  std::optional<std::string> checkpoint;
  std::string new_computer_id;     // fork: the new computer's id
};

struct CommandLine {
  Command command = Command::serve;
  ServerConfig config;
  ComputersCommand computers;  // when command == computers
  // Things worth logging once logging is set up (e.g. "using the default computer id").
  std::vector<std::string> notices;
};

struct ParseOutcome {
  std::optional<CommandLine> command_line;  // absent: exit with exit_code
  int exit_code = 0;
};

// `plugin` is the loaded backend's description, or null when none could be loaded (only
// acceptable for --help and `plugins`; `no_plugin_reason` then says why, for the help text).
// Help and version go to `out`, errors to `err`.
ParseOutcome parse_command_line(int argc, const char* const* argv,
                                const plugins::PluginInfo* plugin,
                                const std::string& no_plugin_reason, std::ostream& out,
                                std::ostream& err);

// "mcp-virtual-computer: error: <message>" on `err`; returns 1 (the configuration-error code).
int report_config_error(std::ostream& err, const std::string& message);

}  // namespace vc::cli
