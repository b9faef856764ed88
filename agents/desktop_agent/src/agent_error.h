// agent_error.h — the one way an action fails: a protocol error code and a sentence for a user.
#pragma once

#include <stdexcept>
#include <string>

namespace vc::desktop_agent {

enum class ErrorCode { kInvalidArgument, kNotFound, kUnavailable, kTimeout, kFailed };

const char* error_code_name(ErrorCode code);

class AgentError : public std::runtime_error {
 public:
  AgentError(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] inline void throw_invalid(const std::string& message) {
  throw AgentError(ErrorCode::kInvalidArgument, message);
}
[[noreturn]] inline void throw_not_found(const std::string& message) {
  throw AgentError(ErrorCode::kNotFound, message);
}
[[noreturn]] inline void throw_unavailable(const std::string& message) {
  throw AgentError(ErrorCode::kUnavailable, message);
}
[[noreturn]] inline void throw_timeout(const std::string& message) {
  throw AgentError(ErrorCode::kTimeout, message);
}
[[noreturn]] inline void throw_failed(const std::string& message) {
  throw AgentError(ErrorCode::kFailed, message);
}

}  // namespace vc::desktop_agent
