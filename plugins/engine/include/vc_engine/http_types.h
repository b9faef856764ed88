// http_types.h — the request and response values of the engine client, and per-call deadlines.
//
// Plain value types: copy them freely, use them from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vc::engine {

// Header fields in arrival order. Names given to add() are stored lower-cased, so find() is
// case-insensitive; values are kept as sent.
class HttpHeaders {
 public:
  void add(std::string_view name, std::string_view value);
  // The first value of `name` (any case), or nullopt.
  std::optional<std::string> find(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& fields() const { return fields_; }
  bool empty() const { return fields_.empty(); }

 private:
  std::vector<std::pair<std::string, std::string>> fields_;
};

// One HTTP request to the engine. The request writer adds Host, User-Agent, Content-Length
// (when there is a body or the method is POST/PUT) and Connection: close; do not put those in
// `headers`.
struct HttpRequest {
  std::string method = "GET";
  // Origin-form target sent verbatim: path plus query, already URL-encoded
  // ("/v1.41/containers/json?all=1&filters=%7B...%7D"). EngineClient's JSON helpers take
  // unversioned paths and add the API prefix themselves; raw request() calls do not.
  std::string target = "/";
  // Sent as Content-Type when not empty ("application/json", "application/x-tar").
  std::string content_type;
  std::string body;
  // Extra fields, e.g. X-Registry-Auth.
  HttpHeaders headers;
};

// A complete response. Bodies are de-chunked; a 204/304 has an empty body.
struct HttpResponse {
  int status = 0;
  std::string reason;   // "OK", "Not Found", as the engine sent it
  HttpHeaders headers;  // names lower-cased
  std::string body;
};

// Deadlines for one call. A zero duration means "no deadline".
struct RequestOptions {
  // From the start of the call until the socket is connected.
  std::chrono::milliseconds connect_timeout{std::chrono::seconds(10)};
  // From the start of the call until the response is complete (connect included). Long polls,
  // event streams and exec streams use no overall deadline unless the caller sets one.
  std::chrono::milliseconds timeout{std::chrono::seconds(30)};

  // Defaults for a buffered request: connect 10 s, overall 30 s.
  static RequestOptions buffered() { return {}; }
  // Defaults for long polls, streams and hijacks: connect 10 s, no overall deadline.
  static RequestOptions unbounded() {
    return {std::chrono::seconds(10), std::chrono::milliseconds(0)};
  }
};

}  // namespace vc::engine
