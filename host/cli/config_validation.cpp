// config_validation.cpp — see config_validation.h.
#include "cli/config_validation.h"

#include <regex>

namespace vc::cli {
namespace {

const ServerConfig kDefaults;

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "localhost" || host == "::1";
}

std::optional<std::string> http_only_option_in_stdio(const ServerConfig& config) {
  if (config.transport != Transport::stdio) return std::nullopt;
  // As in the original, "given" means "different from the default": passing the default
  // value explicitly is harmless and accepted.
  if (config.host != kDefaults.host) {
    return "--host is only valid with --transport http. In stdio mode, there is no HTTP server "
           "to bind.";
  }
  if (config.port != kDefaults.port) {
    return "--port is only valid with --transport http. In stdio mode, there is no HTTP server "
           "to bind.";
  }
  if (config.session_timeout_s != kDefaults.session_timeout_s) {
    return "--session-timeout is only valid with --transport http. In stdio mode, the session "
           "lives as long as the process.";
  }
  if (config.max_request_bytes != kDefaults.max_request_bytes) {
    return "--max-request-bytes is only valid with --transport http. In stdio mode, messages "
           "are lines on stdin.";
  }
  return std::nullopt;
}

}  // namespace

bool is_valid_computer_id(const std::string& id) {
  static const std::regex kSlug("^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$");
  return std::regex_match(id, kSlug);
}

std::optional<std::string> find_config_error(const ServerConfig& config, int64_t output_limit) {
  if (auto problem = http_only_option_in_stdio(config)) return problem;
  if (config.tool_instruction_override && config.extended_tool_instruction) {
    return "Cannot use both --tool-instruction-override and --extended-tool-instruction. Use "
           "override to replace the description entirely, or extended to append to the backend "
           "default.";
  }
  if (config.default_timeout_s < 1) return "--timeout must be at least 1 second.";
  // Unlike the original, the session timeout is enforced, so it must make sense.
  if (config.session_timeout_s < 1) return "--session-timeout must be at least 1 second.";
  if (output_limit < 1) return "--output-limit must be at least 1 byte.";
  if (config.computer_id.empty()) {
    return "COMPUTER_ID is required (example: COMPUTER_ID=agent-workstation).";
  }
  if (!is_valid_computer_id(config.computer_id)) {
    return "COMPUTER_ID must be 1-63 lowercase letters, numbers, or hyphens; it must start and "
           "end with a letter or number.";
  }
  const bool has_token = config.auth_token && !config.auth_token->empty();
  if (config.transport == Transport::http && !is_loopback(config.host) && !has_token &&
      !config.allow_unauthenticated_http) {
    return "A non-loopback HTTP listener can execute arbitrary sandbox commands. Set "
           "KILNTAINERS_AUTH_TOKEN/--auth-token (or MCP_VIRTUAL_COMPUTER_AUTH_TOKEN), or "
           "explicitly pass --allow-unauthenticated-http behind a trusted private network.";
  }
  return std::nullopt;
}

}  // namespace vc::cli
