// stdio_server.h — one MCP server process over stdio: wiring and lifetime.
//
// Startup: backend instance → tool description (from the backend's tool instructions) →
// computer registry → tool catalog → MCP session → stdio transport, signals.
// Data then flows one way: transport → session → tool → registry → backend.
//
// Shutdown (stdin EOF, SIGINT, SIGTERM, or the computer dying): stop reading, cancel the calls
// in flight (their replies are not sent), stop the registry (the computer keeps running),
// shut the backend down (its pending operations are cancelled; up to 4 s), flush stdout, close
// every handle, exit 0. A watchdog ends the process with _exit(0) if that takes over 5 s.
#pragma once

#include <memory>
#include <string>

#include <uv.h>

#include "cli/server_config.h"
#include "mcp/session.h"
#include "plugin_loader/plugin_module.h"
#include "server/server_core.h"
#include "server/server_extension.h"
#include "transport/stdio_transport.h"

namespace vc::server {

class StdioServer {
 public:
  // Runs the server until it shuts down; returns the process exit code (1 when it cannot
  // start: the message has been printed as "mcp-virtual-computer: error: ...").
  // `extension` (may be null; the production binary passes none) adds tools, resources and
  // prompts, and must outlive the call. [main-thread]
  static int run(const cli::ServerConfig& config, std::shared_ptr<plugins::PluginModule> module,
                 const ServerExtension* extension = nullptr);

  ~StdioServer();
  StdioServer(const StdioServer&) = delete;
  StdioServer& operator=(const StdioServer&) = delete;

 private:
  StdioServer(uv_loop_t* loop, const cli::ServerConfig& config, const ServerExtension* extension);

  int serve(std::shared_ptr<plugins::PluginModule> module);
  bool start_protocol();
  void begin_shutdown(const std::string& reason);
  void close_handles();

  ServerCore core_;  // declared first: destroyed after the transport and the session
  std::unique_ptr<transport::StdioTransport> transport_;
  std::unique_ptr<mcp::Session> session_;
};

}  // namespace vc::server
