// log_recorder.h — a host's log service for tests: the lines a part of the plugin logs through an
// sdk::HostLog, kept to be looked at.
//
// Thread rule: lines are recorded from any thread (the host's log is [any-thread]); the
// recorder outlives every HostLog it gave.
#pragma once

#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <vc-backend-1/cpp/host_log.h>

namespace vc::kubernetes::testing {

class LogRecorder {
 public:
  LogRecorder() {
    services_.struct_size = sizeof services_;
    services_.host_ctx = this;
    services_.log = &LogRecorder::record;
  }
  LogRecorder(const LogRecorder&) = delete;
  LogRecorder& operator=(const LogRecorder&) = delete;

  sdk::HostLog log() const { return sdk::HostLog(&services_); }

  // The lines at `level` or above that contain `text`.
  std::vector<std::string> lines_with(const std::string& text, vc_log_level level = VC_LOG_WARN) {
    std::lock_guard lock(mutex_);
    std::vector<std::string> found;
    for (const auto& [line_level, line] : lines_) {
      if (line_level >= level && line.find(text) != std::string::npos) found.push_back(line);
    }
    return found;
  }

 private:
  static void VC_CALL record(const vc_host_services* host, vc_log_level level, const char* text,
                             size_t size) {
    auto* self = static_cast<LogRecorder*>(host->host_ctx);
    std::lock_guard lock(self->mutex_);
    self->lines_.emplace_back(level, std::string(text, size));
  }

  vc_host_services services_{};
  std::mutex mutex_;
  std::vector<std::pair<vc_log_level, std::string>> lines_;
};

}  // namespace vc::kubernetes::testing
