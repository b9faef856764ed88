// validate_plugin_command.h — `mcp-virtual-computer validate-plugin FILE.so [options]`: what
// clap-validator is to CLAP plugins, for backend plugins. Loads FILE with the host's own
// loader, checks its descriptor and options, runs a conformance script of operations against
// a fresh backend instance (conformance_script.h) and prints one line per check.
//
// Exit codes: 0 every check passed; 1 a check failed (including a file that does not load);
// 2 a usage error. It never crashes on a broken plugin: an op that never completes fails its
// check after --op-timeout seconds, and the instance is then abandoned rather than destroyed
// under live plugin threads.
#pragma once

namespace vc::operator_cli {

// [main thread] Runs the whole command on a loop of its own; argv[1] is "validate-plugin".
// Returns the process exit code.
int run_validate_plugin_command(int argc, const char* const* argv);

}  // namespace vc::operator_cli
