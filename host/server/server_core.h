// server_core.h — the part of a server process that does not depend on its transport: the
// backend, the computer registry and lifecycle, the tools and their catalog, the activity feed,
// the desktop tool set, the signal watcher and the shutdown watchdog, with the order in which
// they start, shut down and are destroyed.
//
// A server (stdio_server, http_server) owns one ServerCore and adds its transport and sessions:
// it starts the core, then its transport; a shutdown begins in the core (log, watchdog), the
// server stops its transport's input, and the core ends it (registry, backend, then the
// handles).
//
// [loop-thread] for every member.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "cli/server_config.h"
#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "mcp/activity_feed.h"
#include "mcp/content_catalog.h"
#include "mcp/session.h"
#include "mcp/tool.h"
#include "backend_proxy/backend.h"
#include "plugin_loader/plugin_module.h"
#include "server/server_extension.h"
#include "server/shutdown_watchdog.h"
#include "server/signal_watcher.h"
#include "tools/desktop_tool_set.h"

namespace vc::server {

class ServerCore {
 public:
  // `config` and `extension` (may be null; the production binary passes none) must outlive
  // the core.
  ServerCore(uv_loop_t* loop, const cli::ServerConfig& config, const ServerExtension* extension);
  ~ServerCore();  // release_parts(), then the watchdog, the signals and the desktop tool set
  ServerCore(const ServerCore&) = delete;
  ServerCore& operator=(const ServerCore&) = delete;

  // Watches SIGINT and SIGTERM from now on, so a signal during startup still ends in a clean
  // exit 0: once the server runs, a signal calls `shut_down` with the signal's name; before
  // that it is remembered and acted on by run().
  void watch_signals(std::function<void(const std::string& reason)> shut_down);

  // Backend → registry → tool description → lifecycle → tool catalog → extension → desktop
  // parts → activity feed → App. False when a step failed; fail_startup() has then run.
  bool start(std::shared_ptr<plugins::PluginModule> module);

  // Prints `message` as a configuration error, stops what has started, runs the loop until it
  // has closed and returns the exit code 1.
  int fail_startup(const std::string& message);

  // The server has started its transport: acts on a signal that came during startup, then
  // runs the loop until the shutdown has closed everything. Returns the exit code 0.
  int run();

  // The first half of a shutdown: false when one has already begun; else logs `reason`, arms
  // the watchdog and returns true (the server then stops its transport's input).
  bool begin_shutdown(const std::string& reason);
  // The second half: cancels the tasks still working, stops the registry (the computer keeps
  // running), shuts the backend down,
  // then runs `close_transport` (may be empty) and closes the signal watcher.
  void finish_shutdown(std::function<void()> close_transport);

  // A session over the tools, with the catalog, the desktop tool set and the activity feed.
  std::unique_ptr<mcp::Session> make_session(mcp::Session::SendFn send) const;

  // Users before what they use: the tools reference the registry, the registry the backend.
  // The server calls it after it has dropped its sessions (their calls reference the tools);
  // disarms the watchdog.
  void release_parts();

  const cli::ServerConfig& config() const { return config_; }
  uv_loop_t* loop() const { return loop_; }
  const std::shared_ptr<backend_proxy::Backend>& backend() const { return backend_; }
  computers::ComputerRegistry& registry() { return *registry_; }
  mcp::ActivityFeed* activity() const { return activity_.get(); }

 private:
  uv_loop_t* loop_;
  const cli::ServerConfig& config_;
  const ServerExtension* extension_;  // null in production
  std::shared_ptr<backend_proxy::Backend> backend_;
  std::unique_ptr<computers::ComputerRegistry> registry_;
  std::unique_ptr<computers::ComputerLifecycle> lifecycle_;
  std::unique_ptr<mcp::ActivityFeed> activity_;  // outlives tools and sessions
  std::unique_ptr<mcp::TaskStore> tasks_;        // outlives sessions; released before tools
  std::shared_ptr<const mcp::RequestStateSeal> request_state_seal_;
  std::unique_ptr<tools::DesktopToolSet> desktop_tool_set_;  // outlives tools and sessions
  std::vector<std::unique_ptr<mcp::Tool>> tools_;
  std::unique_ptr<mcp::ContentCatalog> catalog_;
  std::unique_ptr<SignalWatcher> signals_;
  ShutdownWatchdog watchdog_;
  std::function<void(const std::string&)> shut_down_;
  bool running_ = false;
  bool shutting_down_ = false;
  std::string signal_during_startup_;  // acted on once the server runs
};

}  // namespace vc::server
