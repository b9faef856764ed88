// stdio_server.cpp — see stdio_server.h.
#include "server/stdio_server.h"

#include <csignal>

#include <spdlog/spdlog.h>

#include "mcp/jsonrpc.h"
#include "server/server_parts.h"

namespace vc::server {

int StdioServer::run(const cli::ServerConfig& config,
                     std::shared_ptr<plugins::PluginModule> module,
                     const ServerExtension* extension) {
  // A client that goes away must not kill the server mid-write: EPIPE is handled instead.
  std::signal(SIGPIPE, SIG_IGN);
  return run_on_own_loop([&](uv_loop_t* loop) {
    StdioServer server(loop, config, extension);
    return server.serve(std::move(module));
  });
}

StdioServer::StdioServer(uv_loop_t* loop, const cli::ServerConfig& config,
                         const ServerExtension* extension)
    : core_(loop, config, extension) {}

StdioServer::~StdioServer() {
  // Users before what they use: the session's calls reference tools, tools the registry, the
  // registry the backend.
  session_.reset();
  core_.release_parts();
}

int StdioServer::serve(std::shared_ptr<plugins::PluginModule> module) {
  // Watched from the start, so a SIGTERM during startup still ends in a clean exit 0.
  core_.watch_signals([this](const std::string& reason) { begin_shutdown(reason); });
  if (!core_.start(std::move(module))) return 1;
  if (!start_protocol()) return 1;

  const auto& backend = core_.backend();
  spdlog::info("serving MCP over stdio: backend {} {}, computer '{}'", backend->info().name,
               backend->info().version, core_.config().computer_id);
  return core_.run();  // until begin_shutdown() has closed everything
}

bool StdioServer::start_protocol() {
  session_ = core_.make_session([this](const Json& message, const Json& /*related_request*/) {
    if (transport_) transport_->send_line(mcp::jsonrpc::serialize(message));
  });

  auto transport = transport::StdioTransport::open(
      core_.loop(), {[this](std::string_view line) { session_->receive_line(line); },
                     [this](const std::string& reason) { session_->reject_unreadable_line(reason); },
                     [this] { begin_shutdown("stdin closed"); }});
  if (!transport) {
    core_.fail_startup(transport.error().message);
    return false;
  }
  transport_ = std::move(transport).value();
  core_.registry().set_death_handler([this](const std::string& message) {
    spdlog::error("{}", message);
    begin_shutdown("the computer died");
  });
  transport_->start_reading();
  return true;
}

void StdioServer::begin_shutdown(const std::string& reason) {
  if (!core_.begin_shutdown(reason)) return;
  transport_->stop_reading();
  session_->cancel_all_calls();
  core_.finish_shutdown([this] { close_handles(); });
}

void StdioServer::close_handles() {
  // Replies already queued (answers sent before the shutdown began) still reach the client.
  transport_->close([] {});
}

}  // namespace vc::server
