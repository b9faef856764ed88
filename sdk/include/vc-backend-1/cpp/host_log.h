// host_log.h — log lines through the host's log service (vc_host_services.log).
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). A plugin never
// writes to stdout or stderr: with the stdio transport stdout carries the MCP protocol, and the
// host decides where log lines go and at which level.
#pragma once

#include <string_view>

#include <vc-backend-1/vc_host.h>

namespace vc::sdk {

// Cheap to copy; valid while the vc_host_services it was made from is (until destroy()
// returns).
class HostLog {
 public:
  explicit HostLog(const vc_host_services* host) : host_(host) {}

  // [any-thread] Never blocks; the host copies the text.
  void write(vc_log_level level, std::string_view text) const {
    if (host_ != nullptr && host_->log != nullptr) host_->log(host_, level, text.data(), text.size());
  }
  // [any-thread]
  void debug(std::string_view text) const { write(VC_LOG_DEBUG, text); }
  // [any-thread]
  void info(std::string_view text) const { write(VC_LOG_INFO, text); }
  // [any-thread]
  void warn(std::string_view text) const { write(VC_LOG_WARN, text); }
  // [any-thread]
  void error(std::string_view text) const { write(VC_LOG_ERROR, text); }

 private:
  const vc_host_services* host_;
};

}  // namespace vc::sdk
