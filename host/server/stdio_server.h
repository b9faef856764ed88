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
#include <vector>

#include <uv.h>

#include "cli/server_config.h"
#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "mcp/activity_feed.h"
#include "mcp/session.h"
#include "mcp/tool.h"
#include "backend_proxy/backend.h"
#include "plugin_loader/plugin_module.h"
#include "server/server_extension.h"
#include "server/shutdown_watchdog.h"
#include "server/signal_watcher.h"
#include "transport/stdio_transport.h"
#include "tools/desktop_tool_set.h"

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
  bool start_protocol(const std::string& tool_description);
  int fail_startup(const std::string& message);
  void begin_shutdown(const std::string& reason);
  void close_handles();

  uv_loop_t* loop_;
  const cli::ServerConfig& config_;
  const ServerExtension* extension_;  // null in production
  std::shared_ptr<backend_proxy::Backend> backend_;
  std::unique_ptr<computers::ComputerRegistry> registry_;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle_;
  std::unique_ptr<mcp::ActivityFeed> activity_;  // outlives tools and sessions
  std::unique_ptr<tools::DesktopToolSet> desktop_tool_set_;  // outlives tools and sessions
  std::vector<std::unique_ptr<mcp::Tool>> tools_;
  std::unique_ptr<mcp::ContentCatalog> catalog_;
  std::unique_ptr<mcp::Session> session_;
  std::unique_ptr<transport::StdioTransport> transport_;
  std::unique_ptr<SignalWatcher> signals_;
  ShutdownWatchdog watchdog_;
  bool shutting_down_ = false;
  std::string signal_during_startup_;  // acted on once the server runs
};

}  // namespace vc::server
