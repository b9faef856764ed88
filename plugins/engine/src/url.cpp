// url.cpp — percent-encoding and query strings.
#include "vc_engine/url.h"

namespace vc::engine {
namespace {

bool is_unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(text.size() * 3);
  for (char ch : text) {
    const auto byte = static_cast<unsigned char>(ch);
    if (is_unreserved(byte)) {
      encoded.push_back(ch);
    } else {
      encoded.push_back('%');
      encoded.push_back(kHex[byte >> 4]);
      encoded.push_back(kHex[byte & 0x0F]);
    }
  }
  return encoded;
}

std::string query_target(std::string_view path,
                         const std::vector<std::pair<std::string, std::string>>& params) {
  std::string target(path);
  char separator = '?';
  for (const auto& [name, value] : params) {
    target.push_back(separator);
    target += url_encode(name);
    target.push_back('=');
    target += url_encode(value);
    separator = '&';
  }
  return target;
}

}  // namespace vc::engine
