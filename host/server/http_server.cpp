// http_server.cpp — see http_server.h.
#include "server/http_server.h"

#include <csignal>
#include <cstddef>
#include <cstdint>

#include <spdlog/spdlog.h>

#include "server/server_parts.h"
#include "tools/app_bundle.h"

namespace vc::server {

int HttpServer::run(const cli::ServerConfig& config,
                    std::shared_ptr<plugins::PluginModule> module,
                    const ServerExtension* extension) {
  std::signal(SIGPIPE, SIG_IGN);  // a client that goes away mid-write is handled, not fatal
  return run_on_own_loop([&](uv_loop_t* loop) {
    HttpServer server(loop, config, extension);
    return server.serve(std::move(module));
  });
}

HttpServer::HttpServer(uv_loop_t* loop, const cli::ServerConfig& config,
                       const ServerExtension* extension)
    : core_(loop, config, extension) {}

HttpServer::~HttpServer() {
  endpoint_.reset();  // its sessions' calls reference the tools
  core_.release_parts();
}

int HttpServer::serve(std::shared_ptr<plugins::PluginModule> module) {
  core_.watch_signals([this](const std::string& reason) { begin_shutdown(reason); });
  if (!core_.start(std::move(module))) return 1;
  core_.registry().set_death_handler(
      [](const std::string& message) { spdlog::error("{}", message); });

  const cli::ServerConfig& config = core_.config();
  transport::McpHttpSettings settings;
  settings.bind_host = config.host;
  settings.port = config.port;
  settings.auth_token = config.auth_token;
  settings.session_timeout_ms = static_cast<uint64_t>(config.session_timeout_s) * 1000;
  settings.sse_keepalive_ms = static_cast<uint64_t>(config.sse_keepalive_s) * 1000;
  settings.limits.max_body_bytes = static_cast<size_t>(config.max_request_bytes);
  settings.activity = core_.activity();
  settings.dashboard_page = [file = app_file_of(config)] { return tools::read_app_file(file); };
  auto endpoint = transport::McpHttpEndpoint::start(
      core_.loop(), settings,
      [this](mcp::Session::SendFn send) { return core_.make_session(std::move(send)); },
      [this] { return service_info(); });
  if (!endpoint) return core_.fail_startup(endpoint.error().message);
  endpoint_ = std::move(endpoint).value();

  const auto& backend = core_.backend();
  spdlog::info("serving MCP over HTTP on http://{}:{}/mcp: backend {} {}, computer '{}'{}",
               config.host, endpoint_->port(), backend->info().name, backend->info().version,
               config.computer_id, config.auth_token ? ", bearer token required" : "");
  return core_.run();
}

Json HttpServer::service_info() const {
  return Json{{"name", "mcp-virtual-computer"},
              {"version", VC_HOST_VERSION},
              {"mcp_endpoint", "/mcp"},
              {"health", "/healthz"},
              {"computer_id", core_.config().computer_id},
              {"desktop_environment", core_.config().desktop_environment},
              {"network_access", core_.config().network_access},
              {"backend", core_.backend() ? core_.backend()->info().name : ""},
              {"app_resource", tools::kAppResourceUri},
              {"dashboard", "/dashboard.html"}};
}

void HttpServer::begin_shutdown(const std::string& reason) {
  if (!core_.begin_shutdown(reason)) return;
  endpoint_->close([] {});
  core_.finish_shutdown(nullptr);
}

}  // namespace vc::server
