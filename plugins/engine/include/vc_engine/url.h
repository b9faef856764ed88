// url.h — building request targets: percent-encoding and query strings.
//
// Engine filters are JSON documents passed in the query string
// (/containers/json?all=1&filters={"label":["a=b"]}), so they must be percent-encoded.
// Pure functions; any thread.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vc::engine {

// Percent-encodes everything except the RFC 3986 unreserved characters (A-Z a-z 0-9 - . _ ~).
// For query values and for path segments (a container name, an image reference: "debian:12"
// becomes "debian%3A12", "a/b" becomes "a%2Fb").
std::string url_encode(std::string_view text);

// Joins `path` and the parameters into a target: query_target("/containers/json",
// {{"all","1"},{"filters","{\"label\":[\"x\"]}"}}) ==
// "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22x%22%5D%7D". Names and values are
// encoded; no '?' is added when `params` is empty.
std::string query_target(std::string_view path,
                         const std::vector<std::pair<std::string, std::string>>& params);

}  // namespace vc::engine
