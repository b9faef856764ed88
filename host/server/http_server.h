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

#include <uv.h>

#include "cli/server_config.h"
#include "common/json.h"
#include "plugin_loader/plugin_module.h"
#include "server/server_core.h"
#include "server/server_extension.h"
#include "transport/http_mcp_endpoint.h"

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
  void begin_shutdown(const std::string& reason);
  Json service_info() const;

  ServerCore core_;  // declared first: destroyed after the endpoint
  std::unique_ptr<transport::McpHttpEndpoint> endpoint_;
};

}  // namespace vc::server
