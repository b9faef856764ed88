// api_status.h — the sentence for an API call the server refused: its Status object (reason and
// message) turned into an ApiError that names the call, the object and the server, with advice
// where there is some to give.
//
// "The Kubernetes API at https://127.0.0.1:6443 refused GET /api/v1/namespaces/x/pods/y: pods
// \"y\" not found (NotFound)." A server's words are quoted bounded (bounded_quote) and with
// control characters made spaces, since a proxy in front of the API may answer with a page of
// HTML.
//
// Thread rule: pure functions, any thread.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api_error.h"

namespace vc::kubernetes {

// What the call was, for the sentence. `path` is the API path without base path or query.
struct ApiCallSummary {
  std::string_view method;   // "GET"
  std::string_view path;     // "/api/v1/namespaces/x/pods/y"
  std::string_view server;   // "https://127.0.0.1:6443"
  bool watch = false;        // a watch of `path` (RBAC's verb is then "watch")
};

// The error for an answer with `http_status` outside 2xx whose body is `body` (a Status object
// when the API itself answered; anything at all when a proxy did).
ApiError api_error_from_answer(const ApiCallSummary& call, int http_status, std::string_view body);

// The error a watch's ERROR event carries (its object is a Status; code 410 means the watch's
// resourceVersion is too old and the kind is `gone`). http_status is the Status's code.
ApiError api_error_from_watch_status(const ApiCallSummary& call, const nlohmann::json& status);

// "create pods/exec in the namespace vc" — the RBAC verb, resource (with subresource) and
// namespace `method` on `path` needs; "GET /version" when the path is not a resource's.
std::string rbac_action(const ApiCallSummary& call);

}  // namespace vc::kubernetes
