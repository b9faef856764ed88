// http_server.cpp — see http_server.h.
#include "server/http_server.h"

#include <chrono>
#include <csignal>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/command_line.h"
#include "server/server_parts.h"
#include "tools/app_bundle.h"
#include "tools/tool_catalog.h"

namespace vc::server {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(5);

const char* signal_name(int signal_number) {
  return signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace

int HttpServer::run(const cli::ServerConfig& config,
                    std::shared_ptr<plugins::PluginModule> module,
                    const ServerExtension* extension) {
  std::signal(SIGPIPE, SIG_IGN);  // a client that goes away mid-write is handled, not fatal
  uv_loop_t loop;
  uv_loop_init(&loop);
  int exit_code = 0;
  {
    HttpServer server(&loop, config, extension);
    exit_code = server.serve(std::move(module));
  }
  uv_run(&loop, UV_RUN_DEFAULT);
  close_loop(&loop);
  return exit_code;
}

HttpServer::HttpServer(uv_loop_t* loop, const cli::ServerConfig& config,
                       const ServerExtension* extension)
    : loop_(loop), config_(config), extension_(extension) {}

HttpServer::~HttpServer() {
  endpoint_.reset();  // its sessions' calls reference the tools
  tools_.clear();
  catalog_.reset();
  activity_.reset();
  lifecycle_.reset();
  registry_.reset();
  backend_.reset();
  watchdog_.disarm();
}

int HttpServer::serve(std::shared_ptr<plugins::PluginModule> module) {
  signals_ = std::make_unique<SignalWatcher>(loop_, [this](int signal_number) {
    if (running_) {
      begin_shutdown(signal_name(signal_number));
    } else {
      signal_during_startup_ = signal_name(signal_number);
    }
  });
  auto backend = start_backend(loop_, config_, std::move(module));
  if (!backend) return fail_startup(backend.failure().message);
  backend_ = std::move(backend).value();
  registry_ = make_registry(backend_, config_);
  auto description = build_tool_description(loop_, *registry_, config_);
  if (!description) return fail_startup(description.failure().message);

  lifecycle_ = make_lifecycle(backend_, config_, registry_.get());
  tools_ = tools::make_tool_catalog(
      {config_.lifecycle_tools, registry_.get(), lifecycle_.get(), description.value()});
  catalog_ = add_extension_parts(loop_, extension_, tools_);
  desktop_tool_set_ = add_desktop_parts(config_, *registry_, tools_, catalog_);
  activity_ = std::make_unique<mcp::ActivityFeed>(loop_);
  add_app_parts(config_, *activity_, tools_, catalog_);
  registry_->set_death_handler([](const std::string& message) { spdlog::error("{}", message); });

  transport::McpHttpSettings settings;
  settings.bind_host = config_.host;
  settings.port = config_.port;
  settings.auth_token = config_.auth_token;
  settings.session_timeout_ms = static_cast<uint64_t>(config_.session_timeout_s) * 1000;
  settings.limits.max_body_bytes = static_cast<size_t>(config_.max_request_bytes);
  settings.activity = activity_.get();
  settings.dashboard_page = [file = app_file_of(config_)] { return tools::read_app_file(file); };
  auto endpoint = transport::McpHttpEndpoint::start(
      loop_, settings,
      [this](mcp::Session::SendFn send) {
        return std::make_unique<mcp::Session>(
            borrowed(tools_),
            session_options(catalog_.get(), desktop_tool_set_.get(), activity_.get()),
            std::move(send));
      },
      [this] { return service_info(); });
  if (!endpoint) return fail_startup(endpoint.failure().message);
  endpoint_ = std::move(endpoint).value();

  running_ = true;
  spdlog::info("serving MCP over HTTP on http://{}:{}/mcp: backend {} {}, computer '{}'{}",
               config_.host, endpoint_->port(), backend_->info().name, backend_->info().version,
               config_.computer_id, config_.auth_token ? ", bearer token required" : "");
  if (!signal_during_startup_.empty()) begin_shutdown(signal_during_startup_);
  uv_run(loop_, UV_RUN_DEFAULT);
  return 0;
}

Json HttpServer::service_info() const {
  return Json{{"name", "mcp-virtual-computer"},
              {"version", VC_HOST_VERSION},
              {"mcp_endpoint", "/mcp"},
              {"health", "/healthz"},
              {"computer_id", config_.computer_id},
              {"desktop_environment", config_.desktop_environment},
              {"network_access", config_.network_access},
              {"backend", backend_ ? backend_->info().name : ""},
              {"app_resource", tools::kAppResourceUri},
              {"dashboard", "/dashboard.html"}};
}

int HttpServer::fail_startup(const std::string& message) {
  cli::report_config_error(std::cerr, message);
  if (registry_) registry_->shutdown();
  signals_->close([] {});
  if (backend_) backend_->shutdown(kBackendShutdownDeadlineMs, [] {});
  uv_run(loop_, UV_RUN_DEFAULT);
  return 1;
}

void HttpServer::begin_shutdown(const std::string& reason) {
  if (shutting_down_) return;
  shutting_down_ = true;
  spdlog::info("shutting down: {}", reason);
  watchdog_.arm(kShutdownGrace);
  endpoint_->close([] {});
  registry_->shutdown();
  backend_->shutdown(kBackendShutdownDeadlineMs, [this] { signals_->close([] {}); });
}

}  // namespace vc::server
