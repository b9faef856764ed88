// server_parts.h — what every server process sets up the same way, whatever its transport:
// the backend instance, the tool description, the computer registry, the tool catalog.
//
// [loop-thread] for every function.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "cli/server_config.h"
#include "common/failure.h"
#include "computers/computer_lifecycle.h"
#include "computers/computer_registry.h"
#include "mcp/activity_feed.h"
#include "mcp/content_catalog.h"
#include "mcp/session.h"
#include "mcp/tool.h"
#include "backend_proxy/backend.h"
#include "plugin_loader/plugin_module.h"
#include "server/server_extension.h"
#include "tools/desktop_tool_set.h"

namespace vc::server {

// How long a process waits for the backend's pending ops at shutdown (inside the shutdown
// watchdog's grace) before it gives up on them.
inline constexpr uint64_t kBackendShutdownDeadlineMs = 4000;

// Creates the backend instance of `module` with the configured options and state directory.
Expected<std::shared_ptr<backend_proxy::Backend>> start_backend(
    uv_loop_t* loop, const cli::ServerConfig& config,
    std::shared_ptr<plugins::PluginModule> module);

// The terminal_execute description: the override, or the backend's tool instructions for the
// registry's computer (asked for now, running the loop until they arrive) plus the extension.
Expected<std::string> build_tool_description(uv_loop_t* loop,
                                             const computers::ComputerRegistry& registry,
                                             const cli::ServerConfig& config);

std::unique_ptr<computers::ComputerRegistry> make_registry(
    std::shared_ptr<backend_proxy::Backend> backend, const cli::ServerConfig& config);

// Lifecycle operations on any computer of `backend`; `registry` (may be null) owns the
// server's own computer and must outlive the result.
std::unique_ptr<computers::ComputerLifecycle> make_lifecycle(
    std::shared_ptr<backend_proxy::Backend> backend, const cli::ServerConfig& config,
    computers::ComputerRegistry* registry);

// The session options every transport uses; `catalog`, `changes` and `activity` (told of every
// tool call) may be null.
// The seal of input-required results' state: keyed by --request-state-key-file when given
// (a clear error when that file cannot be read or holds fewer than 16 bytes), random else.
Expected<std::shared_ptr<const mcp::RequestStateSeal>> make_request_state_seal(
    const cli::ServerConfig& config);

mcp::SessionOptions session_options(const mcp::ContentCatalog* catalog = nullptr,
                                    mcp::CatalogChanges* changes = nullptr,
                                    mcp::ActivityFeed* activity = nullptr);

// The MCP App (docs/app.md): links the tools it shows to it (their `_meta`), appends the
// App-only `read_activity` tool reading `activity` (which must outlive the tools), and wraps
// `catalog` with the App's resource, read from config.app_file.
// config.app_file, or the App installed beside the executable when none was given.
std::filesystem::path app_file_of(const cli::ServerConfig& config);

void add_app_parts(const cli::ServerConfig& config, mcp::ActivityFeed& activity,
                   std::vector<std::unique_ptr<mcp::Tool>>& tools,
                   std::unique_ptr<mcp::ContentCatalog>& catalog);

// The desktop tools (appended to `tools`) and the screen resources (wrapping `catalog`),
// which exist while the computer's desktop is live; the returned set follows the registry's
// computer and tells sessions when they come and go.
std::unique_ptr<tools::DesktopToolSet> add_desktop_parts(
    const cli::ServerConfig& config, computers::ComputerRegistry& registry,
    std::vector<std::unique_ptr<mcp::Tool>>& tools, std::unique_ptr<mcp::ContentCatalog>& catalog);

// The parts of `extension` (may be null: the production server has none): logs its notice,
// appends its tools to `tools` and returns its catalog; null when there is no extension or it
// has no catalog.
std::unique_ptr<mcp::ContentCatalog> add_extension_parts(
    uv_loop_t* loop, const ServerExtension* extension,
    std::vector<std::unique_ptr<mcp::Tool>>& tools);

// Borrowed pointers to `tools`, for a Session.
std::vector<mcp::Tool*> borrowed(const std::vector<std::unique_ptr<mcp::Tool>>& tools);

// Closes whatever is still open on the loop (there should be nothing) and the loop itself.
void close_loop(uv_loop_t* loop);

// Runs `body` on a loop of its own, then the close callbacks of the parts it destroyed on
// return, then closes the loop; returns what `body` returned (the process exit code).
// [main-thread]
int run_on_own_loop(const std::function<int(uv_loop_t* loop)>& body);

}  // namespace vc::server
