// api_url.h — the request target of a call to the Kubernetes API: the server's base path, the
// object's path and the query, each percent-encoded as RFC 3986 asks.
//
// Callers write paths and query values as plain text ("/api/v1/namespaces/ns/pods",
// labelSelector "app in (web,db)"); this is the one place that encodes them, so that a label
// selector with '=' or ',' or a field selector with '!' reaches the server as the value it was.
//
// Thread rule: pure functions, any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vc::kubernetes {

// One query parameter, name and value as plain text. Order is kept; a name may repeat.
struct QueryParam {
  std::string name;
  std::string value;
};
using QueryParams = std::vector<QueryParam>;

// `text` with every byte outside RFC 3986's unreserved set (A-Z a-z 0-9 - . _ ~) as %XX: safe
// for a query parameter's name or value (a space is %20, never '+', which the API reads as a
// space).
std::string percent_encode_query_component(std::string_view text);

// `path` with every byte that may not stand in a URL path as %XX; '/' stays a separator.
std::string percent_encode_path(std::string_view path);

// "/base/api/v1/namespaces/ns/pods?labelSelector=app%3Dweb": base_path (from the server URL,
// "" or "/k8s/clusters/c-1") + the encoded path + the encoded query when there is one.
std::string make_request_target(std::string_view base_path, std::string_view path,
                                const QueryParams& query);

}  // namespace vc::kubernetes
