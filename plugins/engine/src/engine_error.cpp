// engine_error.cpp — names of error kinds and the libuv error translation.
#include "vc_engine/engine_error.h"

#include <uv.h>

namespace vc::engine {

const char* to_string(EngineErrorKind kind) {
  switch (kind) {
    case EngineErrorKind::kConnect:
      return "connect";
    case EngineErrorKind::kTimeout:
      return "timeout";
    case EngineErrorKind::kCancelled:
      return "cancelled";
    case EngineErrorKind::kTransport:
      return "transport";
    case EngineErrorKind::kProtocol:
      return "protocol";
    case EngineErrorKind::kHttpStatus:
      return "http-status";
    case EngineErrorKind::kIncompatible:
      return "incompatible";
    case EngineErrorKind::kInvalidArgument:
      return "invalid-argument";
  }
  return "unknown";
}

EngineError make_error(EngineErrorKind kind, std::string message, int http_status) {
  EngineError error;
  error.kind = kind;
  error.message = std::move(message);
  error.http_status = http_status;
  return error;
}

EngineError error_from_uv(EngineErrorKind kind, int uv_code) {
  EngineError error;
  error.kind = kind;
  error.uv_code = uv_code;
  // libuv's texts are already the lower-case errno phrases users know from the shell
  // ("connection refused", "no such file or directory", "permission denied").
  error.message = uv_strerror(uv_code);
  return error;
}

}  // namespace vc::engine
