// stdio_server.cpp — see stdio_server.h.
#include "server/stdio_server.h"

#include <chrono>
#include <csignal>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/command_line.h"
#include "mcp/jsonrpc.h"
#include "server/server_parts.h"
#include "tools/tool_catalog.h"

namespace vc::server {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(5);

const char* signal_name(int signal_number) {
  return signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace

int StdioServer::run(const cli::ServerConfig& config,
                     std::shared_ptr<plugins::PluginModule> module,
                     const ServerExtension* extension) {
  // A client that goes away must not kill the server mid-write: EPIPE is handled instead.
  std::signal(SIGPIPE, SIG_IGN);
  uv_loop_t loop;
  uv_loop_init(&loop);
  int exit_code = 0;
  {
    StdioServer server(&loop, config, extension);
    exit_code = server.serve(std::move(module));
  }
  uv_run(&loop, UV_RUN_DEFAULT);  // close callbacks of the parts just destroyed
  close_loop(&loop);
  return exit_code;
}

StdioServer::StdioServer(uv_loop_t* loop, const cli::ServerConfig& config,
                         const ServerExtension* extension)
    : loop_(loop), config_(config), extension_(extension) {}

StdioServer::~StdioServer() {
  // Users before what they use: the session's calls reference tools, tools the registry, the
  // registry the backend.
  session_.reset();
  tools_.clear();
  catalog_.reset();
  activity_.reset();
  lifecycle_.reset();
  registry_.reset();
  backend_.reset();
  watchdog_.disarm();
}

int StdioServer::serve(std::shared_ptr<plugins::PluginModule> module) {
  // Watched from the start, so a SIGTERM during startup still ends in a clean exit 0.
  signals_ = std::make_unique<SignalWatcher>(loop_, [this](int signal_number) {
    if (transport_) {  // running
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
  if (!start_protocol(description.value())) return 1;

  spdlog::info("serving MCP over stdio: backend {} {}, computer '{}'", backend_->info().name,
               backend_->info().version, config_.computer_id);
  if (!signal_during_startup_.empty()) begin_shutdown(signal_during_startup_);
  uv_run(loop_, UV_RUN_DEFAULT);  // until begin_shutdown() has closed everything
  return 0;
}

bool StdioServer::start_protocol(const std::string& tool_description) {
  lifecycle_ = make_lifecycle(backend_, config_, registry_.get());
  tools_ = tools::make_tool_catalog({config_.lifecycle_tools, registry_.get(), lifecycle_.get(), tool_description});
  catalog_ = add_extension_parts(loop_, extension_, tools_);
  desktop_tool_set_ = add_desktop_parts(config_, *registry_, tools_, catalog_);
  activity_ = std::make_unique<mcp::ActivityFeed>(loop_);
  add_app_parts(config_, *activity_, tools_, catalog_);
  session_ = std::make_unique<mcp::Session>(
      borrowed(tools_), session_options(catalog_.get(), desktop_tool_set_.get(), activity_.get()), [this](const Json& message, const Json& /*related_request*/) {
        if (transport_) transport_->send_line(mcp::jsonrpc::serialize(message));
      });

  auto transport = transport::StdioTransport::open(
      loop_, {[this](std::string_view line) { session_->receive_line(line); },
              [this](const std::string& reason) { session_->reject_unreadable_line(reason); },
              [this] { begin_shutdown("stdin closed"); }});
  if (!transport) {
    fail_startup(transport.failure().message);
    return false;
  }
  transport_ = std::move(transport).value();
  registry_->set_death_handler([this](const std::string& message) {
    spdlog::error("{}", message);
    begin_shutdown("the computer died");
  });
  transport_->start_reading();
  return true;
}

int StdioServer::fail_startup(const std::string& message) {
  cli::report_config_error(std::cerr, message);
  if (registry_) registry_->shutdown();
  signals_->close([] {});
  if (backend_) backend_->shutdown(kBackendShutdownDeadlineMs, [] {});
  uv_run(loop_, UV_RUN_DEFAULT);  // until the backend and the signal handles are closed
  return 1;
}

void StdioServer::begin_shutdown(const std::string& reason) {
  if (shutting_down_) return;
  shutting_down_ = true;
  spdlog::info("shutting down: {}", reason);
  watchdog_.arm(kShutdownGrace);
  transport_->stop_reading();
  session_->cancel_all_calls();
  registry_->shutdown();
  backend_->shutdown(kBackendShutdownDeadlineMs, [this] { close_handles(); });
}

void StdioServer::close_handles() {
  // Replies already queued (answers sent before the shutdown began) still reach the client.
  transport_->close([] {});
  signals_->close([] {});
}

}  // namespace vc::server
