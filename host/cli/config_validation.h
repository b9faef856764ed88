// config_validation.h — the startup checks (docs/compatibility.md, "Startup checks and exit
// codes"), in the original's order, with its
// messages. Each failure is a configuration error: exit 1.
#pragma once

#include <optional>
#include <string>

#include "cli/server_config.h"

namespace vc::cli {

// The id rule (docs/compatibility.md, "Names and labels"): ^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$.
bool is_valid_computer_id(const std::string& id);

// 1. stdio with a non-default --host, --port or --session-timeout;
// 2. both tool-instruction options; 3. --timeout < 1; 4. --output-limit < 1;
// 5. COMPUTER_ID empty or not a slug; 6. HTTP on a non-loopback host without a token or
// --allow-unauthenticated-http. The first failing check's message, or nullopt.
// `output_limit` and `timeout` are passed as parsed (signed), before they are stored.
std::optional<std::string> find_config_error(const ServerConfig& config, int64_t output_limit);

}  // namespace vc::cli
