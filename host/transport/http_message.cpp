// http_message.cpp — see http_message.h.
#include "transport/http_message.h"

#include <ctime>

namespace vc::transport {

std::optional<std::string_view> HttpRequest::header(std::string_view lower_case_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_case_name) return std::string_view(value);
  }
  return std::nullopt;
}

std::optional<std::string> HttpRequest::query_parameter(std::string_view name) const {
  std::string_view rest = query;
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) {
      return std::string(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    }
  }
  return std::nullopt;
}

namespace {

HttpResponse response_with_body(int status, const char* content_type, std::string body) {
  HttpResponse response;
  response.status = status;
  response.headers.emplace_back("Content-Type", content_type);
  response.body = std::move(body);
  return response;
}

}  // namespace

HttpResponse HttpResponse::json(int status, std::string body) {
  return response_with_body(status, "application/json", std::move(body));
}

HttpResponse HttpResponse::text(int status, std::string body) {
  return response_with_body(status, "text/plain; charset=utf-8", std::move(body));
}

HttpResponse& HttpResponse::with_header(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
  }
}

std::string http_date() {
  std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%a, %d %b %Y %H:%M:%S GMT", &utc);
  return text;
}

}  // namespace vc::transport
