// server_config.h — the validated configuration of one server process (docs/compatibility.md,
// "Defaults").
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/computer_defaults.h"
#include "common/json.h"

namespace vc::cli {

enum class Transport { stdio, http };

struct ServerConfig {
  Transport transport = Transport::stdio;
  std::string host = "127.0.0.1";
  uint16_t port = 8435;
  int64_t session_timeout_s = 300;
  int64_t max_request_bytes = 4 * 1024 * 1024;  // HTTP request bodies; larger ones get 413
  int64_t default_timeout_s = defaults::kCommandTimeoutS;
  uint64_t output_limit = defaults::kOutputLimit;
  std::string shell{defaults::kShell};
  bool network_access = defaults::kNetworkAccess;
  bool desktop_environment = defaults::kDesktopEnvironment;
  std::string computer_id{defaults::kComputerId};
  std::string workspace_directory{defaults::kWorkspaceDirectory};
  std::optional<std::string> tool_instruction_override;
  std::optional<std::string> extended_tool_instruction;
  std::optional<std::string> auth_token;
  bool allow_unauthenticated_http = false;
  bool lifecycle_tools = false;  // --lifecycle-tools: the computer_* management tools
  // --mount-root: the real path of the folder inside which computer_create (--lifecycle-tools)
  // may mount host folders; empty: it may mount none (docs/mounts.md).
  std::string mount_root;
  // The checkpoint_* tools, offered when the backend keeps checkpoints;
  // --no-checkpoint-tools turns them off.
  bool checkpoint_tools = true;
  // The process_* tools, offered when the backend's computers hold processes;
  // --no-process-tools turns them off.
  bool process_tools = true;
  // --request-state-key-file: the secret that seals the state of input-required results
  // (docs/protocol.md); processes behind one load balancer share it. Unset: random per process.
  std::optional<std::filesystem::path> request_state_key_file;
  // --sse-keepalive: seconds between the SSE comments that keep idle streams open through
  // proxies (HTTP only); 0: none.
  int64_t sse_keepalive_s = 25;
  // --task-id-prefix: put before this process's task ids ("<prefix>-<uuid>"); empty: none.
  std::string task_id_prefix;

  std::string backend = "docker";  // name or path of the backend plugin
  std::vector<std::filesystem::path> plugin_dirs;
  Json backend_options = Json::object();  // {"<option>": value} as declared

  // --app-file: the MCP App's HTML (tools/app_bundle.h); default beside the executable.
  std::filesystem::path app_file;

  std::string log_level = "info";
  std::optional<std::filesystem::path> log_file;

  // --state-dir: state kept between runs; a plugin gets <state_dir>/<plugin id>.
  std::filesystem::path state_dir;
};

}  // namespace vc::cli
