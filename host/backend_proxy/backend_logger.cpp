#include "backend_proxy/backend_logger.h"

#include <spdlog/spdlog.h>

#include <mutex>

namespace vc::backend_proxy {

std::shared_ptr<spdlog::logger> backend_logger(const std::string& plugin_id) {
  const std::string name = "backend." + plugin_id;
  // Serialises get-or-create: two plugin threads logging first at the same time get one logger.
  static std::mutex creation;
  std::lock_guard lock(creation);
  if (auto existing = spdlog::get(name)) return existing;
  const std::shared_ptr<spdlog::logger> host = spdlog::default_logger();
  auto logger = std::make_shared<spdlog::logger>(name, host->sinks().begin(), host->sinks().end());
  logger->set_level(host->level());
  logger->flush_on(host->flush_level());
  try {
    spdlog::register_logger(logger);
  } catch (const spdlog::spdlog_ex&) {
    // Registered behind our back under the same name: that logger is as good.
    if (auto registered = spdlog::get(name)) return registered;
  }
  return logger;
}

spdlog::level::level_enum to_spdlog_level(vc_log_level level) {
  switch (level) {
    case VC_LOG_TRACE: return spdlog::level::trace;
    case VC_LOG_DEBUG: return spdlog::level::debug;
    case VC_LOG_INFO: return spdlog::level::info;
    case VC_LOG_WARN: return spdlog::level::warn;
    case VC_LOG_ERROR: return spdlog::level::err;
    case VC_LOG_CRITICAL: return spdlog::level::critical;
    default: return level < VC_LOG_TRACE ? spdlog::level::trace : spdlog::level::critical;
  }
}

}  // namespace vc::backend_proxy
