// command_line.cpp — see command_line.h.
#include "cli/command_line.h"

#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <ostream>
#include <string_view>

#include <CLI/CLI.hpp>
#include <vc-backend-1/cpp/checkpoint_name.h>

#include "cli/config_validation.h"
#include "cli/env_flag.h"
#include "cli/plugin_options.h"
#include "cli/state_directory.h"
#include "common/ascii_text.h"

namespace vc::cli {
namespace {

constexpr const char* kDescription =
    "MCP server that gives an LLM agent a real, persistent Linux computer. The computer is run "
    "by a backend plugin chosen with --backend.";

// What the host's own options parse into, before it becomes a ServerConfig.
struct HostOptionValues {
  std::string transport = "stdio";
  std::string host = ServerConfig().host;
  int64_t port = ServerConfig().port;
  int64_t timeout = ServerConfig().default_timeout_s;
  int64_t output_limit = static_cast<int64_t>(ServerConfig().output_limit);
  int64_t session_timeout = ServerConfig().session_timeout_s;
  int64_t max_request_bytes = ServerConfig().max_request_bytes;
  std::string auth_token;
  bool allow_unauthenticated_http = false;
  bool lifecycle_tools = false;
  std::string mount_root;
  bool no_checkpoint_tools = false;
  bool no_process_tools = false;
  std::string shell = ServerConfig().shell;
  bool network = ServerConfig().network_access;
  std::string tool_instruction_override;
  std::string extended_tool_instruction;
  std::string backend = ServerConfig().backend;
  std::vector<std::string> plugin_dirs;
  std::string computer_id;
  std::string log_level = ServerConfig().log_level;
  std::string log_file;
  std::string state_dir;
  std::string app_file;
  std::string request_state_key_file;
  std::string task_id_prefix;
  int64_t sse_keepalive = ServerConfig().sse_keepalive_s;
};

// The options whose presence (not only value) matters after parsing.
struct HostOptions {
  CLI::Option* auth_token = nullptr;
  CLI::Option* tool_instruction_override = nullptr;
  CLI::Option* extended_tool_instruction = nullptr;
  CLI::Option* computer_id = nullptr;
  CLI::Option* log_file = nullptr;
  CLI::Option* state_dir = nullptr;
  CLI::Option* request_state_key_file = nullptr;
  CLI::App* plugins_command = nullptr;
  CLI::App* computers_command = nullptr;
  CLI::App* validate_plugin_command = nullptr;  // listed for --help; main runs it when first
  std::vector<std::pair<CLI::App*, ComputersAction>> computers_actions;
};

HostOptions add_core_options(CLI::App& app, HostOptionValues& v, HostOptions handles) {
  const std::string group = "Core options";
  app.add_option("--transport", v.transport, "MCP transport")
      ->check(CLI::IsMember({"stdio", "http"}))->capture_default_str()->group(group);
  app.add_option("--host", v.host, "HTTP bind address (HTTP only)")->capture_default_str()->group(group);
  app.add_option("--port", v.port, "HTTP listen port (HTTP only)")
      ->check(CLI::Range(0, 65535))->capture_default_str()->group(group);
  app.add_option("--timeout", v.timeout, "Default command timeout in seconds")
      ->capture_default_str()->group(group);
  app.add_option("--output-limit", v.output_limit,
                 "Maximum combined stdout+stderr bytes of one command")
      ->capture_default_str()->group(group);
  app.add_option("--session-timeout", v.session_timeout,
                 "Idle HTTP session timeout in seconds (HTTP only)")
      ->capture_default_str()->group(group);
  app.add_option("--max-request-bytes", v.max_request_bytes,
                 "Largest HTTP request body accepted; larger ones get 413 (HTTP only)")
      ->check(CLI::Range(int64_t{1024}, int64_t{1} << 30))->capture_default_str()->group(group);
  handles.auth_token =
      app.add_option("--auth-token", v.auth_token,
                     "Static bearer token for the HTTP /mcp route (default: "
                     "KILNTAINERS_AUTH_TOKEN, then MCP_VIRTUAL_COMPUTER_AUTH_TOKEN)")
          ->group(group);
  handles.request_state_key_file =
      app.add_option("--request-state-key-file", v.request_state_key_file,
                     "File with the secret (16 to 4096 bytes) that seals the state of "
                     "input-required results; give every process behind one load balancer the "
                     "same file (default: a random secret per process)")
          ->group(group);
  app.add_option("--sse-keepalive", v.sse_keepalive,
                 "Seconds between the comments that keep an idle SSE stream (a listen, a long "
                 "command) open through proxies; 0 sends none (HTTP only)")
      ->check(CLI::Range(int64_t{0}, int64_t{3600}))->capture_default_str()->group(group);
  app.add_option("--task-id-prefix", v.task_id_prefix,
                 "Letters, digits, '_' or '.' (1 to 32) put before this process's task ids, "
                 "so a load balancer can send tasks/* requests (their Mcp-Name header is the "
                 "task id) to the process that runs the task (default: none)")
      ->check([](const std::string& prefix) -> std::string {
        const bool fits = !prefix.empty() && prefix.size() <= 32 &&
                          prefix.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
                                                   "QRSTUVWXYZ0123456789_.") == std::string::npos;
        return fits ? "" : "use 1 to 32 letters, digits, '_' or '.'";
      })
      ->group(group);
  app.add_flag("--allow-unauthenticated-http", v.allow_unauthenticated_http,
               "Allow a non-loopback HTTP listener without authentication. Only use behind a "
               "trusted private network or auth proxy.")
      ->group(group);
  app.add_flag("--lifecycle-tools", v.lifecycle_tools,
               "Also offer computer_list, computer_create, computer_restart, "
               "computer_factory_reset, computer_delete and (when the backend keeps "
               "checkpoints) computer_fork, for orchestrators that manage many computers, and "
               "let the checkpoint tools name a computer (off by default: the model gets one "
               "computer)")
      ->group(group);
  app.add_option("--mount-root", v.mount_root,
                 "Folder whose subfolders computer_create (--lifecycle-tools) may mount into "
                 "the computers it makes; without it the model can mount nothing "
                 "(docs/mounts.md)")
      ->group(group);
  app.add_flag("--no-checkpoint-tools", v.no_checkpoint_tools,
               "Do not offer checkpoint_create, checkpoint_list, checkpoint_restore and "
               "checkpoint_delete (offered by default when the backend keeps checkpoints)")
      ->group(group);
  app.add_flag("--no-process-tools", v.no_process_tools,
               "Do not offer process_start, process_read, process_write, process_kill and "
               "process_list (offered by default when the backend's computers hold processes)")
      ->group(group);
  app.add_option("--shell", v.shell, "Shell that runs the command of terminal_execute")
      ->capture_default_str()->group(group);
  app.add_flag("--network,!--no-network", v.network,
               "Give the computer network access (the NETWORK_ACCESS variable overrides this)")
      ->default_str("true")->group(group);
  handles.computer_id =
      app.add_option("--computer-id", v.computer_id,
                     "Name of the persistent computer: 1-63 lowercase letters, digits or "
                     "hyphens (default: virtual-computer)")
          ->envname("COMPUTER_ID")->group(group);
  return handles;
}

// `computers list|prepare|restart|reset|delete|exec|checkpoint|checkpoints|restore|fork|
// checkpoint-delete`. Host and backend options may come before or after the action
// (fallthrough), so `computers list --backend podman` works.
void add_computers_command(CLI::App& app, HostOptions& handles, ComputersCommand& values) {
  CLI::App* computers = app.add_subcommand(
      "computers",
      "Manage this backend's computers: list, prepare, create, restart, reset, delete, exec, and their "
      "checkpoints: checkpoint, checkpoints, restore, fork, checkpoint-delete");
  computers->fallthrough();
  computers->require_subcommand(1);
  computers->add_flag("--json", values.json, "Print JSON instead of tables and sentences");
  handles.computers_command = computers;

  auto action = [&](const char* name, const char* description, ComputersAction kind) {
    CLI::App* sub = computers->add_subcommand(name, description);
    sub->fallthrough();
    if (kind != ComputersAction::list && kind != ComputersAction::prepare) {
      sub->add_option("computer_id", values.computer_id, "The computer's id")->required();
    }
    if (kind == ComputersAction::reset || kind == ComputersAction::remove ||
        kind == ComputersAction::restore) {
      sub->add_flag("-y,--yes", values.yes, "Do not ask for confirmation");
    }
    if (kind == ComputersAction::checkpoint || kind == ComputersAction::restore ||
        kind == ComputersAction::checkpoint_delete) {
      sub->add_option("name", values.checkpoint, "The checkpoint's name")->required();
    }
    handles.computers_actions.emplace_back(sub, kind);
    return sub;
  };
  action("list", "List the computers, with their state", ComputersAction::list);
  action("prepare",
         "Make the image of new computers ready now (builds the bundled desktop image when "
         "it is missing or out of date), so that the first computer starts at once",
         ComputersAction::prepare);
  action("create",
         "Create and start a computer with this command line's settings and backend options, "
         "e.g. create ID --mount /home/me/project:/workspace/project[:ro] (repeatable; "
         "docs/mounts.md)",
         ComputersAction::create);
  action("restart", "Restart a computer; its files are kept", ComputersAction::restart);
  action("reset", "Factory-reset a computer: fresh files, same id and settings",
         ComputersAction::reset);
  action("delete", "Delete a computer and its files", ComputersAction::remove);
  CLI::App* exec = action("exec", "Run a command on a computer: exec ID -- COMMAND [ARGS...]",
                          ComputersAction::exec);
  exec->add_option("command", values.argv, "The command and its arguments (after --)")
      ->required();
  exec->add_flag("--stdin", values.forward_stdin, "Pass this process's stdin to the command");
  exec->add_option("--workdir", values.working_directory,
                   "Absolute directory to run in (default: the workspace)");
  action("checkpoint",
         "Save a computer's files as a named checkpoint: checkpoint ID NAME (files only, not "
         "running programs)",
         ComputersAction::checkpoint);
  action("checkpoints", "List a computer's checkpoints, oldest first", ComputersAction::checkpoints);
  action("restore",
         "Bring a computer's files back to a checkpoint: restore ID NAME; later changes are "
         "lost and running programs end",
         ComputersAction::restore);
  CLI::App* fork = action(
      "fork",
      "Create a new computer from a computer's checkpoint, or from its current files: fork ID "
      "NEW-ID [--checkpoint NAME]",
      ComputersAction::fork);
  fork->add_option("new_computer_id", values.new_computer_id, "The new computer's id")->required();
  fork->add_option("--checkpoint", values.checkpoint,
                   "The checkpoint to start from (default: the current files)");
  action("checkpoint-delete", "Delete a computer's checkpoint: checkpoint-delete ID NAME",
         ComputersAction::checkpoint_delete);
}

// Why the parsed `computers` command cannot run (ids and names are checked before any backend
// is asked), or nullopt.
std::optional<std::string> computers_command_problem(const ComputersCommand& computers) {
  const auto id_problem = [](const std::string& id) {
    return "'" + id +
           "' is not a computer id: ids are 1-63 lowercase letters, numbers, or hyphens, "
           "starting and ending with a letter or number.";
  };
  if (computers.action != ComputersAction::list && computers.action != ComputersAction::prepare &&
      !is_valid_computer_id(computers.computer_id)) {
    return id_problem(computers.computer_id);
  }
  if (computers.action == ComputersAction::fork) {
    if (!is_valid_computer_id(computers.new_computer_id)) {
      return id_problem(computers.new_computer_id);
    }
    if (computers.new_computer_id == computers.computer_id) {
      return "fork needs a new computer id: '" + computers.computer_id +
             "' is the computer being forked.";
    }
  }
  if (computers.checkpoint && !sdk::is_valid_checkpoint_name(*computers.checkpoint)) {
    return "'" + *computers.checkpoint + "' is not a checkpoint name: " +
           sdk::kCheckpointNameRule;
  }
  return std::nullopt;
}

HostOptions add_host_options(CLI::App& app, HostOptionValues& v, ComputersCommand& computers) {
  HostOptions handles = add_core_options(app, v, {});

  const std::string description = "Tool description";
  handles.tool_instruction_override =
      app.add_option("--tool-instruction-override", v.tool_instruction_override,
                     "Replace the entire terminal_execute tool description")
          ->group(description);
  handles.extended_tool_instruction =
      app.add_option("--extended-tool-instruction", v.extended_tool_instruction,
                     "Append to the backend's default tool description")
          ->group(description);

  const std::string backend = "Backend plugins";
  app.add_option("--backend", v.backend,
                 "Backend plugin: a name (vc-backend-NAME.so on the plugin search path) or the "
                 "path of a .so file")
      ->capture_default_str()->group(backend);
  app.add_option("--plugin-dir", v.plugin_dirs,
                 "Directory searched for backend plugins before MCP_VIRTUAL_COMPUTER_PLUGIN_PATH "
                 "and the built-in directory; repeatable")
      ->allow_extra_args(false)->group(backend);
  handles.state_dir =
      app.add_option("--state-dir", v.state_dir,
                     "Directory for state kept between runs; each plugin gets <dir>/<plugin id>")
          ->default_str(default_state_dir().string())->group(backend);

  app.add_option("--app-file", v.app_file,
                 "The MCP App's HTML file (ui://virtual-computer/computer.html and "
                 "/dashboard.html); default: ../share/mcp-virtual-computer/computer.html beside "
                 "the executable")
      ->group("Core options");

  const std::string logging = "Logging";
  app.add_option("--log-level", v.log_level, "Log level of the server's own log (stderr)")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str()->group(logging);
  handles.log_file =
      app.add_option("--log-file", v.log_file, "Write the log to this file instead of stderr")
          ->group(logging);

  handles.plugins_command = app.add_subcommand(
      "plugins", "List the backend plugins on the search path (and the files skipped), then exit");
  handles.plugins_command->fallthrough();  // `plugins --plugin-dir D` means the host option
  add_computers_command(app, handles, computers);
  // main hands `validate-plugin` at argv[1] to the operator room before this parser runs (it
  // loads the plugin file it names, not --backend). Registered here so that --help lists it
  // and so that a misplaced one is a usage error rather than a server start.
  handles.validate_plugin_command = app.add_subcommand(
      kValidatePluginCommand,
      "Check a backend plugin file against the ABI: validate-plugin FILE.so [options]; must be "
      "the first argument (validate-plugin --help)");
  handles.validate_plugin_command->prefix_command();
  return handles;
}

std::string plugin_footer(const plugins::PluginInfo& plugin) {
  return "Backend: " + plugin.name + " " + plugin.version + " (" + plugin.path.string() +
         ")\n  " + plugin.description;
}

std::string no_plugin_footer(const std::string& reason) {
  return "No backend plugin was loaded, so backend options are not listed:\n  " + reason +
         "\nChoose a backend with --backend NAME; `" + kProgramName + " plugins` lists them.";
}

std::optional<std::string> auth_token_from_environment() {
  for (const char* name : {"KILNTAINERS_AUTH_TOKEN", "MCP_VIRTUAL_COMPUTER_AUTH_TOKEN"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && value[0] != '\0') return value;
  }
  return std::nullopt;
}

std::vector<std::filesystem::path> to_paths(const std::vector<std::string>& texts) {
  return {texts.begin(), texts.end()};
}

// Fills a ServerConfig from the parsed values and runs the checks, in the original's order:
// the environment's booleans first (the original read them while building its config), then
// the validation of docs/compatibility.md, "Startup checks and exit codes".
ParseOutcome build_serve_config(const HostOptionValues& v, const HostOptions& handles,
                                const PluginOptions& plugin_options, std::ostream& err) {
  CommandLine command_line;
  ServerConfig& config = command_line.config;

  const auto desktop = read_env_flag("DESKTOP_ENVIRONMENT", false);
  if (!desktop) return {std::nullopt, report_config_error(err, desktop.error().message)};
  const auto network = read_env_flag("NETWORK_ACCESS", v.network);
  if (!network) return {std::nullopt, report_config_error(err, network.error().message)};
  config.desktop_environment = desktop.value();
  config.network_access = network.value();

  config.transport = v.transport == "http" ? Transport::http : Transport::stdio;
  config.host = v.host;
  config.port = static_cast<uint16_t>(v.port);  // range-checked by the parser
  config.default_timeout_s = v.timeout;
  config.output_limit = v.output_limit > 0 ? static_cast<uint64_t>(v.output_limit) : 0;
  config.session_timeout_s = v.session_timeout;
  config.max_request_bytes = v.max_request_bytes;
  config.auth_token = handles.auth_token->count() > 0 ? std::optional(v.auth_token)
                                                      : auth_token_from_environment();
  config.allow_unauthenticated_http = v.allow_unauthenticated_http;
  if (handles.request_state_key_file->count() > 0) {
    config.request_state_key_file = v.request_state_key_file;
  }
  config.task_id_prefix = v.task_id_prefix;
  config.sse_keepalive_s = v.sse_keepalive;
  config.lifecycle_tools = v.lifecycle_tools;
  if (!v.mount_root.empty()) {
    char resolved[PATH_MAX];
    struct stat info {};
    if (v.mount_root.front() != '/' || ::realpath(v.mount_root.c_str(), resolved) == nullptr ||
        ::stat(resolved, &info) != 0 || !S_ISDIR(info.st_mode)) {
      return {std::nullopt,
              report_config_error(err, "--mount-root must be an existing folder given as an "
                                       "absolute path; got '" + v.mount_root + "'.")};
    }
    config.mount_root = resolved;
  }
  config.checkpoint_tools = !v.no_checkpoint_tools;
  config.process_tools = !v.no_process_tools;
  config.shell = v.shell;
  if (handles.tool_instruction_override->count() > 0) {
    config.tool_instruction_override = v.tool_instruction_override;
  }
  if (handles.extended_tool_instruction->count() > 0) {
    config.extended_tool_instruction = v.extended_tool_instruction;
  }
  if (handles.computer_id->count() > 0) {
    config.computer_id = trim_ascii_whitespace(v.computer_id);
  } else {
    config.computer_id = std::string(defaults::kComputerId);
    command_line.notices.push_back(std::string("neither COMPUTER_ID nor --computer-id is set; "
                                               "using the computer id '") +
                                   std::string(defaults::kComputerId) + "'");
  }
  config.backend = v.backend;
  config.plugin_dirs = to_paths(v.plugin_dirs);
  config.backend_options = plugin_options.values();
  config.log_level = v.log_level;
  if (handles.log_file->count() > 0) config.log_file = v.log_file;
  config.app_file = v.app_file;
  config.state_dir = handles.state_dir->count() > 0 ? std::filesystem::path(v.state_dir)
                                                    : default_state_dir();

  if (auto problem = find_config_error(config, v.output_limit)) {
    return {std::nullopt, report_config_error(err, *problem)};
  }
  return {std::move(command_line), 0};
}

bool asks_for_help_or_version(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return false;
    if (arg == "-h" || arg == "--help" || arg == "--version") return true;
  }
  return false;
}

}  // namespace

int report_config_error(std::ostream& err, const std::string& message) {
  err << kProgramName << ": error: " << message << std::endl;
  return 1;
}

Prescan prescan_command_line(int argc, const char* const* argv) {
  Prescan prescan;
  prescan.help_requested = asks_for_help_or_version(argc, argv);
  CLI::App app(kDescription, kProgramName);
  app.set_help_flag();      // --help is phase 2's business
  app.allow_extras();       // the plugin's options are not known yet; set before subcommands
  HostOptionValues values;
  ComputersCommand computers;
  const HostOptions handles = add_host_options(app, values, computers);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError&) {
    prescan.readable = false;  // phase 2 reports the error with its exit code
    return prescan;
  }
  prescan.backend = values.backend;
  prescan.plugin_dirs = to_paths(values.plugin_dirs);
  prescan.plugins_command = handles.plugins_command->parsed();
  return prescan;
}

ParseOutcome parse_command_line(int argc, const char* const* argv,
                                const plugins::PluginInfo* plugin,
                                const std::string& no_plugin_reason, std::ostream& out,
                                std::ostream& err) {
  CLI::App app(kDescription, kProgramName);
  app.get_formatter()->column_width(40);
  app.set_version_flag("--version", std::string(kProgramName) + " " + VC_HOST_VERSION);
  HostOptionValues values;
  ComputersCommand computers;
  const HostOptions handles = add_host_options(app, values, computers);
  PluginOptions plugin_options;
  if (plugin != nullptr) {
    if (auto failure = plugin_options.add_to(app, *plugin)) {
      return {std::nullopt, report_config_error(err, failure->message)};
    }
    app.footer(plugin_footer(*plugin));
  } else {
    app.footer(no_plugin_footer(no_plugin_reason));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --help-all, --version
    app.exit(done, out, err);
    return {std::nullopt, 0};
  } catch (const CLI::ParseError& error) {
    app.exit(error, out, err);
    return {std::nullopt, 2};
  }

  if (handles.validate_plugin_command->parsed()) {
    err << kProgramName << ": error: " << kValidatePluginCommand
        << " must be the first argument: " << kProgramName << " " << kValidatePluginCommand
        << " FILE.so [options]" << std::endl;
    return {std::nullopt, 2};
  }
  if (handles.plugins_command->parsed()) {
    CommandLine command_line;
    command_line.command = Command::list_plugins;
    command_line.config.plugin_dirs = to_paths(values.plugin_dirs);
    return {std::move(command_line), 0};
  }
  ParseOutcome outcome = build_serve_config(values, handles, plugin_options, err);
  if (outcome.command_line && handles.computers_command->parsed()) {
    outcome.command_line->command = Command::computers;
    for (const auto& [sub, kind] : handles.computers_actions) {
      if (sub->parsed()) computers.action = kind;
    }
    if (auto problem = computers_command_problem(computers)) {
      return {std::nullopt, report_config_error(err, *problem)};
    }
    outcome.command_line->computers = std::move(computers);
    outcome.command_line->notices.clear();  // the default-id notice is about serving
  }
  return outcome;
}

}  // namespace vc::cli
