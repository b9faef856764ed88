// server_core.cpp — see server_core.h.
#include "server/server_core.h"

#include <chrono>
#include <csignal>
#include <iostream>

#include <spdlog/spdlog.h>

#include "cli/command_line.h"
#include "server/server_parts.h"
#include "tools/tool_catalog.h"

namespace vc::server {
namespace {

constexpr auto kShutdownGrace = std::chrono::seconds(5);

const char* stop_signal_name(int signal_number) {
  return signal_number == SIGINT ? "SIGINT" : signal_number == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace

ServerCore::ServerCore(uv_loop_t* loop, const cli::ServerConfig& config,
                       const ServerExtension* extension)
    : loop_(loop), config_(config), extension_(extension) {}

ServerCore::~ServerCore() { release_parts(); }

void ServerCore::release_parts() {
  tasks_.reset();
  tools_.clear();
  catalog_.reset();
  activity_.reset();
  lifecycle_.reset();
  registry_.reset();
  backend_.reset();
  watchdog_.disarm();
}

void ServerCore::watch_signals(std::function<void(const std::string& reason)> shut_down) {
  shut_down_ = std::move(shut_down);
  signals_ = std::make_unique<SignalWatcher>(loop_, [this](int signal_number) {
    if (running_) {
      shut_down_(stop_signal_name(signal_number));
    } else {
      signal_during_startup_ = stop_signal_name(signal_number);
    }
  });
}

bool ServerCore::start(std::shared_ptr<plugins::PluginModule> module) {
  auto seal = make_request_state_seal(config_);
  if (!seal) {
    fail_startup(seal.error().message);
    return false;
  }
  request_state_seal_ = std::move(seal).value();
  auto backend = start_backend(loop_, config_, std::move(module));
  if (!backend) {
    fail_startup(backend.error().message);
    return false;
  }
  backend_ = std::move(backend).value();
  registry_ = make_registry(backend_, config_);
  auto description = build_tool_description(loop_, *registry_, config_);
  if (!description) {
    fail_startup(description.error().message);
    return false;
  }

  lifecycle_ = make_lifecycle(backend_, config_, registry_.get());
  tools_ = tools::make_tool_catalog({config_.lifecycle_tools, registry_.get(), lifecycle_.get(),
                                     description.value(), config_.checkpoint_tools,
                                     config_.process_tools, config_.mount_root});
  catalog_ = add_extension_parts(loop_, extension_, tools_);
  desktop_tool_set_ = add_desktop_parts(config_, *registry_, tools_, catalog_);
  activity_ = std::make_unique<mcp::ActivityFeed>(loop_);
  add_app_parts(config_, *activity_, tools_, catalog_);
  mcp::TaskStoreOptions task_options;
  task_options.id_prefix = config_.task_id_prefix;
  tasks_ = std::make_unique<mcp::TaskStore>(std::move(task_options));
  return true;
}

int ServerCore::fail_startup(const std::string& message) {
  cli::report_config_error(std::cerr, message);
  if (registry_) registry_->shutdown();
  signals_->close([] {});
  if (backend_) backend_->shutdown(kBackendShutdownDeadlineMs, [] {});
  uv_run(loop_, UV_RUN_DEFAULT);  // until the backend and the signal handles are closed
  return 1;
}

int ServerCore::run() {
  running_ = true;
  if (!signal_during_startup_.empty()) shut_down_(signal_during_startup_);
  uv_run(loop_, UV_RUN_DEFAULT);  // until the shutdown has closed everything
  return 0;
}

bool ServerCore::begin_shutdown(const std::string& reason) {
  if (shutting_down_) return false;
  shutting_down_ = true;
  spdlog::info("shutting down: {}", reason);
  watchdog_.arm(kShutdownGrace);
  return true;
}

void ServerCore::finish_shutdown(std::function<void()> close_transport) {
  tasks_->cancel_all();
  registry_->shutdown();
  backend_->shutdown(kBackendShutdownDeadlineMs,
                     [this, close_transport = std::move(close_transport)] {
                       if (close_transport) close_transport();
                       signals_->close([] {});
                     });
}

std::unique_ptr<mcp::Session> ServerCore::make_session(mcp::Session::SendFn send) const {
  mcp::SessionOptions options =
      session_options(catalog_.get(), desktop_tool_set_.get(), activity_.get());
  options.request_state_seal = request_state_seal_;
  options.tasks = tasks_.get();
  return std::make_unique<mcp::Session>(borrowed(tools_), std::move(options), std::move(send));
}

}  // namespace vc::server
