// engine_failure.cpp — mapping EngineError kinds onto SDK statuses and sentences.
#include "engine_failure.h"

#include <string>

namespace vc::container {

std::string engine_reason(const engine::EngineError& error) {
  std::string reason = error.engine_message.empty() ? error.message : error.engine_message;
  // Messages are embedded in sentences: drop the engine's trailing newline or full stop.
  while (!reason.empty() && (reason.back() == '\n' || reason.back() == ' ' || reason.back() == '.')) {
    reason.pop_back();
  }
  return reason;
}

nlohmann::json error_details(const EngineProfile& profile, std::string_view reason,
                             bool retryable, int engine_status) {
  nlohmann::json details = {{"code", profile.engine_name + "." + std::string(reason)},
                            {"retryable", retryable}};
  if (engine_status != 0) details["engine_status"] = engine_status;
  return details;
}

OpFailure failure_from_engine(const EngineProfile& profile, std::string_view address,
                              const engine::EngineError& error, std::string_view action) {
  using engine::EngineErrorKind;
  const std::string engine = profile.engine_display_name;
  const std::string at = std::string(address);
  switch (error.kind) {
    case EngineErrorKind::kConnect:
      return {VC_E_UNAVAILABLE,
              "Cannot connect to the " + engine + " at " + at + ": " + error.message + ". " +
                  profile.daemon_hint,
              error_details(profile, "engine_unreachable", true)};
    case EngineErrorKind::kTimeout:
      return {VC_E_TIMEOUT,
              "The " + engine + " at " + at + " did not answer in time while trying to " +
                  std::string(action) + " (" + error.message + "). It may be overloaded; retry, "
                  "or raise --engine-timeout.",
              error_details(profile, "engine_timeout", true)};
    case EngineErrorKind::kCancelled:
      return cancelled_failure();
    case EngineErrorKind::kTransport:
      return {VC_E_UNAVAILABLE,
              "Lost the connection to the " + engine + " at " + at + " while trying to " +
                  std::string(action) + ": " + error.message + ". " + profile.daemon_hint,
              error_details(profile, "engine_connection_lost", true)};
    case EngineErrorKind::kProtocol:
      return {VC_E_FAILED,
              "The " + engine + " at " + at + " sent an answer that could not be read while "
                  "trying to " + std::string(action) + ": " + error.message + ".",
              error_details(profile, "engine_protocol", false)};
    case EngineErrorKind::kIncompatible:
      return {VC_E_INCOMPATIBLE, "The " + engine + " at " + at + " cannot be used: " +
                                     error.message + ".",
              error_details(profile, "engine_incompatible", false)};
    case EngineErrorKind::kInvalidArgument:
      return {VC_E_INVALID_ARGUMENT, "Cannot " + std::string(action) + ": " + error.message + ".",
              error_details(profile, "invalid_argument", false)};
    case EngineErrorKind::kHttpStatus:
      break;
  }
  vc_status status = VC_E_FAILED;
  const char* reason = "engine_refused";
  if (error.http_status == 401 || error.http_status == 403) {
    status = VC_E_PERMISSION;
    reason = "engine_forbidden";
  } else if (error.http_status == 404) {
    status = VC_E_NOT_FOUND;
    reason = "not_found";
  } else if (error.http_status == 409) {
    status = VC_E_BUSY;
    reason = "conflict";
  }
  return {status,
          "The " + engine + " refused to " + std::string(action) + ": " + engine_reason(error) +
              ".",
          error_details(profile, reason, false, error.http_status)};
}

}  // namespace vc::container
