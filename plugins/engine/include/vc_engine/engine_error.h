// engine_error.h — the error value of every engine call, and Result<T>.
//
// The library cannot use the host's error type (a plugin sees only the SDK's headers and this
// library), so it has its own; Result<T> pairs it with a value through the SDK's Expected. An
// EngineError says what went wrong in words a user can act on ("connection refused", "timed out
// after 30 s", "engine answered 404: No such container: x") and keeps the machine-readable facts
// next to it: the libuv error when the transport failed and the HTTP status when the engine
// answered.
#pragma once

#include <string>

#include <vc-backend-1/cpp/expected.h>

namespace vc::engine {

// Why an engine call failed. The kind decides what the plugin tells the user; the message
// carries the detail.
enum class EngineErrorKind {
  kConnect,          // the socket could not be opened (refused, missing, permission denied, ...)
  kTimeout,          // a connect timeout or request deadline passed
  kCancelled,        // the caller cancelled, or the EngineLoop stopped, before the answer came
  kTransport,        // the connection broke after it was open (reset, EOF in mid-response)
  kProtocol,         // the engine's bytes were not valid HTTP, or a body was not valid JSON
  kHttpStatus,       // the engine answered with an error status (>= 400); see http_status
  kIncompatible,     // the engine's API version is too old for this client
  kInvalidArgument,  // the caller's input cannot be used (bad address, long socket path, ...)
};

// Returns a short lower-case name for a kind ("connect", "timeout", ...), for logs and tests.
const char* to_string(EngineErrorKind kind);

struct EngineError {
  EngineErrorKind kind = EngineErrorKind::kTransport;
  // The reason in words, lower-case start, no trailing period, no address: the caller adds
  // context ("Cannot connect to the Docker engine at <address>: <message>. Is dockerd running?").
  // Examples: "connection refused", "no such file or directory", "timed out after 30 s",
  // "engine answered 500: <engine message>".
  std::string message;
  // The HTTP status when the engine answered (kHttpStatus and some kProtocol errors), else 0.
  int http_status = 0;
  // The libuv error code (negative errno, e.g. UV_ECONNREFUSED) when the transport failed,
  // else 0.
  int uv_code = 0;
  // For kHttpStatus: the engine's own text, the "message" member of its JSON error body
  // ({"message":"No such container: x"}), or the raw body when it was not JSON. Empty otherwise.
  std::string engine_message;
};

// Either a T or an EngineError; Result<void> is success without a value, or an EngineError.
// The SDK's value-or-error template, which C++20 lacks.
template <class T>
using Result = sdk::Expected<T, EngineError>;

// Builds an EngineError of the given kind and message (and HTTP status when the engine
// answered), for the errors the library finds itself rather than ones libuv reports. Any thread.
EngineError make_error(EngineErrorKind kind, std::string message, int http_status = 0);

// Builds the EngineError for a libuv failure: kind as given, message uv_strerror-style
// ("connection refused"), uv_code set. Any thread.
EngineError error_from_uv(EngineErrorKind kind, int uv_code);

}  // namespace vc::engine
