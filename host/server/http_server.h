// http_server.h — one MCP server process over Streamable HTTP: wiring and lifetime.
//
// Startup as for stdio (backend, tool description, registry, tool catalog), then the HTTP
// endpoint on --host:--port; every HTTP session gets an MCP session over the same tools, so
// all of them share the one computer. A computer that dies is logged and reported to the
// calls that follow; the server keeps serving.
//
// Shutdown (SIGINT, SIGTERM): stop accepting, end every session (their calls are cancelled),
// stop the registry (the computer keeps running), shut the backend down, exit 0; a watchdog
// ends the process if that takes over 5 s.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "cli/server_config.h"
#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "mcp/activity_feed.h"
#include "mcp/tool.h"
#include "backend_proxy/backend.h"
#include "plugin_loader/plugin_module.h"
#include "server/server_extension.h"
#include "server/shutdown_watchdog.h"
#include "server/signal_watcher.h"
#include "transport/http_mcp_endpoint.h"
#include "tools/desktop_tool_set.h"

namespace vc::server {

class HttpServer {
 public:
  // Runs the server until it shuts down; returns the process exit code (1 when it cannot
  // start: the message has been printed as "mcp-virtual-computer: error: ...").
  // `extension` (may be null; the production binary passes none) adds tools, resources and
  // prompts, and must outlive the call. [main-thread]
  static int run(const cli::ServerConfig& config, std::shared_ptr<plugins::PluginModule> module,
                 const ServerExtension* extension = nullptr);

  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

 private:
  HttpServer(uv_loop_t* loop, const cli::ServerConfig& config, const ServerExtension* extension);

  int serve(std::shared_ptr<plugins::PluginModule> module);
  int fail_startup(const std::string& message);
  void begin_shutdown(const std::string& reason);
  Json service_info() const;

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
  std::unique_ptr<transport::McpHttpEndpoint> endpoint_;
  std::unique_ptr<SignalWatcher> signals_;
  ShutdownWatchdog watchdog_;
  bool running_ = false;
  bool shutting_down_ = false;
  std::string signal_during_startup_;
};

}  // namespace vc::server
