// run_host.h — the whole mcp-virtual-computer process behind main(): read the command line,
// load the backend plugin, then list plugins, run the operator's `computers` command or serve.
//
// The production main() passes no extension; a test host links the same code and passes one,
// so what it serves differs from the product only by what the extension adds.
#pragma once

#include "server/server_extension.h"

namespace vc::launcher {

// Returns the process exit code (0 success, 1 configuration or startup error, 2 usage error).
// `extension` (may be null) is handed to the server, stdio or HTTP, and must outlive the call;
// the `plugins` listing and the `computers` command do not serve tools and ignore it.
// [main-thread] Call once, first thing in main(): it sets up the process (memory policy,
// standard descriptors, fatal-signal report, logging) before anything can log.
int run_mcp_virtual_computer(int argc, char** argv, const server::ServerExtension* extension);

}  // namespace vc::launcher
