// request_state.cpp — see request_state.h. A token is "<base64 of the state's JSON>.<expiry in
// ms since the epoch>.<hex HMAC-SHA256>".
#include "mcp/request_state.h"

#include <charconv>

#include "common/base64.h"
#include "common/random_bytes.h"
#include "common/sha256.h"

namespace vc::mcp {
namespace {

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string random_key() {
  unsigned char bytes[32];
  fill_random(bytes, sizeof bytes, "the request-state key");
  return std::string(reinterpret_cast<const char*>(bytes), sizeof bytes);
}

// Equal without stopping at the first difference: how long a comparison takes says nothing
// about how much of a forged signature was right.
bool same_text(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char difference = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return difference == 0;
}

}  // namespace

RequestStateSeal::RequestStateSeal(std::string key)
    : key_(key.empty() ? random_key() : std::move(key)) {}

std::string RequestStateSeal::signature(const std::string& target, const Json& arguments,
                                        const std::string& body,
                                        const std::string& expiry) const {
  const std::string bound = "mcp-virtual-computer request state 1\n" + target + "\n" +
                            sha256_hex(arguments.dump()) + "\n" + expiry + "\n" + body;
  return hmac_sha256_hex(key_, bound);
}

std::string RequestStateSeal::seal(const std::string& target, const Json& arguments,
                                   const Json& state) const {
  const std::string body = base64_encode(state.dump());
  const std::string expiry = std::to_string(
      now_ms() + std::chrono::duration_cast<std::chrono::milliseconds>(kRequestStateLifetime)
                     .count());
  return body + "." + expiry + "." + signature(target, arguments, body, expiry);
}

std::optional<Json> RequestStateSeal::open(const std::string& token, const std::string& target,
                                           const Json& arguments) const {
  if (token.size() > kMaxRequestStateBytes) return std::nullopt;
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string::npos ? first : token.find('.', first + 1);
  if (second == std::string::npos) return std::nullopt;
  const std::string body = token.substr(0, first);
  const std::string expiry = token.substr(first + 1, second - first - 1);
  const std::string sent_signature = token.substr(second + 1);
  if (!same_text(sent_signature, signature(target, arguments, body, expiry))) return std::nullopt;
  int64_t expires = 0;
  const auto [end, error] = std::from_chars(expiry.data(), expiry.data() + expiry.size(), expires);
  if (error != std::errc() || end != expiry.data() + expiry.size() || expires < now_ms()) {
    return std::nullopt;
  }
  const auto decoded = base64_decode(body);
  if (!decoded) return std::nullopt;
  Json state = Json::parse(*decoded, nullptr, /*allow_exceptions=*/false);
  if (state.is_discarded()) return std::nullopt;
  return state;
}

}  // namespace vc::mcp
