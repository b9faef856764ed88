// backend_logger.h — the spdlog logger a plugin writes into: "backend.<plugin id>".
#pragma once

#include <memory>
#include <string>

#include <spdlog/logger.h>
#include <vc-backend-1/vc_host.h>

namespace vc::backend_proxy {

// [any-thread] The logger "backend.<plugin_id>", created on first use and registered with
// spdlog. A new logger writes to the default logger's sinks at its level, so plugin lines go
// wherever the host's log goes (stderr or --log-file).
std::shared_ptr<spdlog::logger> backend_logger(const std::string& plugin_id);

// VC_LOG_TRACE..VC_LOG_CRITICAL to spdlog's levels; out-of-range values are clamped.
spdlog::level::level_enum to_spdlog_level(vc_log_level level);

}  // namespace vc::backend_proxy
