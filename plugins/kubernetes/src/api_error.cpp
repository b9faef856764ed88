// api_error.cpp — names and HTTP mapping of ApiErrorKind; bounded quoting and the sizes and
// durations of sentences. Any thread.
#include "api_error.h"

namespace vc::kubernetes {

const char* api_error_kind_name(ApiErrorKind kind) {
  switch (kind) {
    case ApiErrorKind::unreachable: return "unreachable";
    case ApiErrorKind::tls: return "tls";
    case ApiErrorKind::credentials: return "credentials";
    case ApiErrorKind::unauthorized: return "unauthorized";
    case ApiErrorKind::forbidden: return "forbidden";
    case ApiErrorKind::not_found: return "not_found";
    case ApiErrorKind::conflict: return "conflict";
    case ApiErrorKind::gone: return "gone";
    case ApiErrorKind::invalid: return "invalid";
    case ApiErrorKind::timeout: return "timeout";
    case ApiErrorKind::cancelled: return "cancelled";
    case ApiErrorKind::server: return "server";
    case ApiErrorKind::protocol: return "protocol";
  }
  return "server";
}

ApiErrorKind api_error_kind_for_status(int http_status) {
  switch (http_status) {
    case 400: return ApiErrorKind::invalid;
    case 401: return ApiErrorKind::unauthorized;
    case 403: return ApiErrorKind::forbidden;
    case 404: return ApiErrorKind::not_found;
    case 409: return ApiErrorKind::conflict;
    case 410: return ApiErrorKind::gone;
    case 422: return ApiErrorKind::invalid;
    case 504: return ApiErrorKind::timeout;
    default: return ApiErrorKind::server;
  }
}

std::string bounded_quote(const std::string& text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t cut = limit;
  // Back up over UTF-8 continuation bytes (10xxxxxx) so a character is never split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "…";
}

std::string describe_duration(std::chrono::milliseconds duration) {
  if (duration.count() % 1000 == 0) return std::to_string(duration.count() / 1000) + " s";
  return std::to_string(duration.count()) + " ms";
}

std::string describe_size(std::size_t bytes) {
  constexpr std::size_t kMiB = 1024 * 1024;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  if (bytes >= 1024 && bytes % 1024 == 0) return std::to_string(bytes / 1024) + " KiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace vc::kubernetes
