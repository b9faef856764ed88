// host_log.h — log lines through the host's log service (vc_host_services.log).
//
// A plugin never writes to stdout or stderr: stdout may carry the MCP protocol, and the host
// decides where logs go and at which level.
#pragma once

#include <string_view>

#include <vc-backend-1/vc_host.h>

namespace vc::container {

class HostLog {
 public:
  explicit HostLog(const vc_host_services* host) : host_(host) {}

  // [any-thread] The host copies the text and never blocks.
  void write(vc_log_level level, std::string_view text) const {
    if (host_ != nullptr && host_->log != nullptr) host_->log(host_, level, text.data(), text.size());
  }
  void debug(std::string_view text) const { write(VC_LOG_DEBUG, text); }
  void info(std::string_view text) const { write(VC_LOG_INFO, text); }
  void warn(std::string_view text) const { write(VC_LOG_WARN, text); }
  void error(std::string_view text) const { write(VC_LOG_ERROR, text); }

 private:
  const vc_host_services* host_;
};

}  // namespace vc::container
