// misbehaviour_log.h — the "plugin misbehaving" lines the backend proxy logs, kept for the
// validate-plugin report.
//
// The backend proxy already detects contract violations (a second completion, an emit after
// completing, a status returned after completing, an exception across the C ABI) and logs each
// as a warning. validate-plugin needs them as check results, so it adds this sink to the
// default logger before the backend exists: the backend's logger copies the default logger's
// sinks when it is created (backend_proxy/backend_logger.h).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace vc::operator_cli {

class MisbehaviourLog {
 public:
  // [loop-thread] Adds the capturing sink to spdlog's default logger. Call before the backend
  // instance is created. The log must outlive every logger the sink was copied into, so it is
  // shared with the sink.
  static std::shared_ptr<MisbehaviourLog> install();

  // [any-thread] Lines captured so far.
  size_t size() const;
  // [any-thread] Lines captured from index `first` on.
  std::vector<std::string> since(size_t first) const;

  // [any-thread] Called by the sink for every warning-or-worse message.
  void offer(const std::string& message);

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace vc::operator_cli
