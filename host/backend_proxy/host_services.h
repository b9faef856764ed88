// host_services.h — the vc_host_services table one backend instance receives.
//
// Holds the table and everything it points to (state_dir), so it must outlive the instance:
// until ops->destroy() returned, or forever if the instance was abandoned at shutdown.
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <spdlog/logger.h>
#include <vc-backend-1/vc_host.h>

#include "common/failure.h"
#include "plugin_loader/plugin_module.h"

namespace vc::backend_proxy {

class HostServices {
 public:
  // [loop-thread] Creates `state_dir` (and its parents) and fills the table. The calling thread
  // is what vc.host.thread-check/1 reports as the loop thread.
  static Expected<std::shared_ptr<HostServices>> create(const plugins::PluginInfo& plugin,
                                                        const std::filesystem::path& state_dir);

  HostServices(const HostServices&) = delete;
  HostServices& operator=(const HostServices&) = delete;

  // Valid as long as this object lives. [any-thread]
  const vc_host_services* table() const { return &table_; }

  // The logger "backend.<plugin id>", created on first use. [any-thread]
  spdlog::logger& logger();

  // [any-thread]
  bool on_loop_thread() const { return std::this_thread::get_id() == loop_thread_; }

 private:
  HostServices(std::string plugin_id, std::string state_dir);

  static HostServices* from(const vc_host_services* host);
  static void VC_CALL log(const vc_host_services* host, vc_log_level level, const char* msg,
                          size_t msg_len);
  static const void* VC_CALL get_extension(const vc_host_services* host, const char* id);
  static int32_t VC_CALL is_loop_thread(const vc_host_services* host);

  vc_host_services table_{};
  const std::string plugin_id_;
  const std::string state_dir_;
  const std::thread::id loop_thread_;
  std::once_flag logger_created_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace vc::backend_proxy
