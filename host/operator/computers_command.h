// computers_command.h — `mcp-virtual-computer computers list|prepare|create|restart|reset|delete|exec`
// and the checkpoint actions `checkpoint|checkpoints|restore|fork|checkpoint-delete`: the
// operator's command line, on the same binary, plugins and options as the server.
//
// Output: tables and sentences for people, or with --json one JSON document on stdout for
// scripts ({"error": ...} when something failed). Failures also go to stderr as
// "mcp-virtual-computer: error: <message>" and exit 1; a backend without checkpoints fails the
// checkpoint actions with "The <name> backend has no checkpoints: ...". reset, delete and
// restore ask on stderr and read the answer from stdin unless --yes. exec streams the command's stdout and stderr as they
// arrive (with --json it collects them instead) and exits with the command's exit code: 124
// when it timed out, 128+N when this process was stopped by signal N (the command is killed).
#pragma once

#include <memory>

#include "cli/command_line.h"
#include "plugin_loader/plugin_module.h"

namespace vc::operator_cli {

// Runs the command to completion on a loop of its own; returns the process exit code.
int run_computers_command(const cli::ServerConfig& config, const cli::ComputersCommand& command,
                          std::shared_ptr<plugins::PluginModule> module);

}  // namespace vc::operator_cli
