// api_error.h — why a call to the Kubernetes API failed, as a kind the backend decides on and a
// sentence a user can act on.
//
// Every transport part (api_connection.h, api_client.h, the exec and port-forward streams)
// reports failures as ApiError. `kind` is what code branches on (a missing pod is not an
// unreachable server); `message` is what a user reads: it names the server or the object and,
// where there is one, what to do ("Cannot reach the Kubernetes API at https://10.0.0.1:6443:
// connection refused. Is the cluster running?"). Messages are bounded: a server's own text is
// cut to a few hundred bytes.
//
// Thread rule: plain values, copied freely.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

#include <vc-backend-1/cpp/expected.h>

namespace vc::kubernetes {

enum class ApiErrorKind {
  unreachable,   // no TCP connection: refused, no route, name not resolved
  tls,           // the TLS handshake failed (untrusted certificate, wrong name, bad client key)
  credentials,   // the credential source failed (token file unreadable, exec plugin failed)
  unauthorized,  // 401: the server did not accept the credentials
  forbidden,     // 403: RBAC refused the request
  not_found,     // 404: the object (or its namespace) does not exist
  conflict,      // 409: already exists, or changed since it was read
  gone,          // 410: a watch's resourceVersion is too old
  invalid,       // 400/422: the server refused the object
  timeout,       // the call's deadline passed
  cancelled,     // the caller cancelled the call
  server,        // 5xx, or a failure the server reported without a better kind
  protocol,      // the answer was not what the API promises (bad JSON, wrong upgrade)
};

struct ApiError {
  ApiErrorKind kind = ApiErrorKind::server;
  int http_status = 0;     // 0 when no HTTP answer came
  std::string reason;      // the Status object's reason ("NotFound", "AlreadyExists"), if any
  std::string message;     // the sentence for the user
};

template <class T>
using ApiExpected = sdk::Expected<T, ApiError>;

// "not_found" and so on, for logs and tests.
const char* api_error_kind_name(ApiErrorKind kind);

// The kind an HTTP status stands for (404 -> not_found, ...); `server` for the unknown ones.
ApiErrorKind api_error_kind_for_status(int http_status);

// `text` cut to at most `limit` bytes (at a UTF-8 boundary) with "…" when cut; for quoting a
// server's or a program's words in a message.
std::string bounded_quote(const std::string& text, std::size_t limit = 300);

// "30 s", "250 ms": a deadline for a sentence.
std::string describe_duration(std::chrono::milliseconds duration);

// "16 MiB", "1500 bytes": a size limit for a sentence.
std::string describe_size(std::size_t bytes);

}  // namespace vc::kubernetes
