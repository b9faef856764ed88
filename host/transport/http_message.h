// http_message.h — one HTTP/1.1 request as the server received it, and a response to send.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vc::transport {

// Header names are kept lower-cased (HTTP names are case-insensitive); values as received.
using HeaderList = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // "/activity?after=3"
  std::string path;    // "/activity"
  std::string query;   // "after=3"
  HeaderList headers;
  std::string body;

  // The first value of header `lower_case_name`, or nullopt.
  std::optional<std::string_view> header(std::string_view lower_case_name) const;
  // The value of query parameter `name` (not percent-decoded), or nullopt.
  std::optional<std::string> query_parameter(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  HeaderList headers;  // Content-Length, Date and Connection are added by the connection
  std::string body;

  static HttpResponse json(int status, std::string body);
  static HttpResponse text(int status, std::string body);
  HttpResponse& with_header(std::string name, std::string value);
};

// "OK", "Not Found", ... ("Unknown" for codes this server never sends).
const char* reason_phrase(int status);

// "Wed, 02 Dec 2026 10:00:00 GMT" for now.
std::string http_date();

}  // namespace vc::transport
