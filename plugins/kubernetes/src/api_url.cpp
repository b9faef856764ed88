// api_url.cpp — percent-encoding of paths and query parameters. Pure functions, any thread.
#include "api_url.h"

namespace vc::kubernetes {
namespace {

bool is_unreserved(unsigned char byte) {
  return (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
         (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' || byte == '_' || byte == '~';
}

// RFC 3986 pchar without '%' (a literal percent sign is data here, never an escape) plus '/'.
bool may_stand_in_path(unsigned char byte) {
  if (is_unreserved(byte)) return true;
  switch (byte) {
    case '/': case ':': case '@': case '!': case '$': case '&': case '\'': case '(': case ')':
    case '*': case '+': case ',': case ';': case '=':
      return true;
    default:
      return false;
  }
}

template <class KeepAsIs>
std::string percent_encode(std::string_view text, KeepAsIs keep_as_is) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(text.size());
  for (const char character : text) {
    const auto byte = static_cast<unsigned char>(character);
    if (keep_as_is(byte)) {
      encoded += character;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0x0F];
    }
  }
  return encoded;
}

}  // namespace

std::string percent_encode_query_component(std::string_view text) {
  return percent_encode(text, is_unreserved);
}

std::string percent_encode_path(std::string_view path) {
  return percent_encode(path, may_stand_in_path);
}

std::string make_request_target(std::string_view base_path, std::string_view path,
                                const QueryParams& query) {
  std::string target = percent_encode_path(base_path);
  if (path.empty() || path.front() != '/') target += '/';
  target += percent_encode_path(path);
  char separator = '?';
  for (const QueryParam& parameter : query) {
    target += separator;
    target += percent_encode_query_component(parameter.name);
    target += '=';
    target += percent_encode_query_component(parameter.value);
    separator = '&';
  }
  return target;
}

}  // namespace vc::kubernetes
