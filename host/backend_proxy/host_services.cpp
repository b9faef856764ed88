#include "backend_proxy/host_services.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <system_error>

#include <vc-backend-1/ext/vc_host_thread_check.h>

#include "backend_proxy/backend_logger.h"

namespace vc::backend_proxy {

namespace {

// A plugin's log line is cut here: one runaway message must not flood the host's log.
constexpr size_t kMaxLogMessage = 16 * 1024;

}  // namespace

HostServices::HostServices(std::string plugin_id, std::string state_dir)
    : plugin_id_(std::move(plugin_id)),
      state_dir_(std::move(state_dir)),
      loop_thread_(std::this_thread::get_id()) {
  table_.struct_size = sizeof table_;
  table_.host_ctx = this;
  table_.log = &HostServices::log;
  table_.get_extension = &HostServices::get_extension;
  table_.state_dir = state_dir_.c_str();
}

Expected<std::shared_ptr<HostServices>> HostServices::create(
    const plugins::PluginInfo& plugin, const std::filesystem::path& state_dir) {
  if (state_dir.empty()) {
    return Failure{VC_E_INVALID_ARGUMENT,
                   "No state directory was given for the " + plugin.name + " backend."};
  }
  std::error_code error;
  std::filesystem::path absolute_dir = std::filesystem::absolute(state_dir, error);
  if (error) absolute_dir = state_dir;
  absolute_dir = absolute_dir.lexically_normal();
  std::filesystem::create_directories(absolute_dir, error);
  if (error) {
    return Failure{VC_E_PERMISSION, "Cannot create the state directory " + absolute_dir.string() +
                                        " of the " + plugin.name + " backend: " + error.message()};
  }
  return std::shared_ptr<HostServices>(new HostServices(plugin.id, absolute_dir.string()));
}

spdlog::logger& HostServices::logger() {
  std::call_once(logger_created_, [this] { logger_ = backend_logger(plugin_id_); });
  return *logger_;
}

HostServices* HostServices::from(const vc_host_services* host) {
  return host == nullptr ? nullptr : static_cast<HostServices*>(host->host_ctx);
}

void VC_CALL HostServices::log(const vc_host_services* host, vc_log_level level, const char* msg,
                               size_t msg_len) {
  HostServices* services = from(host);
  if (services == nullptr || msg == nullptr) return;
  const std::string_view text(msg, std::min(msg_len, kMaxLogMessage));
  try {
    if (msg_len > kMaxLogMessage) {
      services->logger().log(to_spdlog_level(level), "{} [... {} more bytes cut]", text,
                             msg_len - kMaxLogMessage);
    } else {
      services->logger().log(to_spdlog_level(level), "{}", text);
    }
  } catch (...) {
    // Logging must never throw into plugin code across the C ABI.
  }
}

const void* VC_CALL HostServices::get_extension(const vc_host_services* host, const char* id) {
  static const vc_host_thread_check thread_check = {&HostServices::is_loop_thread};
  if (from(host) == nullptr || id == nullptr) return nullptr;
  if (std::strcmp(id, VC_EXT_HOST_THREAD_CHECK) == 0) return &thread_check;
  return nullptr;
}

int32_t VC_CALL HostServices::is_loop_thread(const vc_host_services* host) {
  const HostServices* services = from(host);
  return services != nullptr && services->on_loop_thread() ? 1 : 0;
}

}  // namespace vc::backend_proxy
