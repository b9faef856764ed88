// http_security.cpp — see http_security.h.
#include "transport/http_security.h"

#include <algorithm>

#include "common/ascii_text.h"

namespace vc::transport {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// "localhost:8435" -> "localhost"; "[::1]:80" -> "[::1]"; nullopt for a malformed port.
std::optional<std::string> host_without_port(std::string_view authority) {
  std::string_view name = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    name = authority.substr(0, close + 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') return std::nullopt;
      port = rest.substr(1);
    }
  } else if (const auto colon = authority.find(':'); colon != std::string_view::npos) {
    name = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return ascii_lower(name);
}

bool loopback_name(const std::string& name) {
  return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

}  // namespace

bool is_loopback_bind(std::string_view bind_host) {
  const std::string host = ascii_lower(bind_host);
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

bool host_header_allowed(std::string_view host) {
  const auto name = host_without_port(trim(host));
  return name && loopback_name(*name);
}

bool origin_allowed(std::optional<std::string_view> origin) {
  if (!origin) return true;
  const std::string value = ascii_lower(trim(*origin));
  std::string_view rest = value;
  if (rest.rfind("http://", 0) == 0) {
    rest.remove_prefix(7);
  } else if (rest.rfind("https://", 0) == 0) {
    rest.remove_prefix(8);
  } else {
    return false;
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos) return false;
  const auto name = host_without_port(rest);
  return name && loopback_name(*name);
}

bool bearer_matches(std::optional<std::string_view> authorization, std::string_view token) {
  if (!authorization || token.empty()) return false;
  const std::string_view value = trim(*authorization);
  const auto space = value.find(' ');
  if (space == std::string_view::npos) return false;
  if (ascii_lower(value.substr(0, space)) != "bearer") return false;
  const std::string_view credential = trim(value.substr(space + 1));
  // Constant time in the token's length: every byte is compared whatever the first mismatch.
  unsigned difference = credential.size() == token.size() ? 0U : 1U;
  for (size_t i = 0; i < token.size(); ++i) {
    const unsigned char given =
        i < credential.size() ? static_cast<unsigned char>(credential[i]) : 0U;
    difference |= given ^ static_cast<unsigned char>(token[i]);
  }
  return difference == 0;
}

bool accepts(std::optional<std::string_view> accept, std::string_view media_type) {
  if (!accept) return false;
  const std::string wanted = ascii_lower(media_type);
  const std::string family = wanted.substr(0, wanted.find('/')) + "/*";
  std::string_view rest = *accept;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    item = trim(item.substr(0, item.find(';')));
    const std::string offered = ascii_lower(item);
    if (offered == wanted || offered == family || offered == "*/*") return true;
  }
  return false;
}

bool content_type_is(std::optional<std::string_view> content_type, std::string_view media_type) {
  if (!content_type) return false;
  return ascii_lower(trim(content_type->substr(0, content_type->find(';')))) == ascii_lower(media_type);
}

}  // namespace vc::transport
