// base64.cpp — base64 through OpenSSL's EVP_DecodeBlock / EVP_EncodeBlock, after a strict check
// of the alphabet (EVP_DecodeBlock alone would stop silently at a '-' and keeps padding bytes).
#include "base64.h"

#include <openssl/evp.h>

#include <climits>

namespace vc::kubernetes {
namespace {

bool is_base64_letter(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

bool is_ignored_space(char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; }

// The text without the spaces decoding ignores, or nullopt when a character is outside the
// alphabet or padding is anywhere but at the end.
std::optional<std::string> compact_base64(std::string_view text) {
  std::string compact;
  compact.reserve(text.size());
  std::size_t padding = 0;
  for (char c : text) {
    if (is_ignored_space(c)) continue;
    if (c == '=') {
      ++padding;
    } else if (!is_base64_letter(c) || padding > 0) {
      return std::nullopt;
    }
    compact.push_back(c);
  }
  if (padding > 2 || compact.size() % 4 != 0) return std::nullopt;
  return compact;
}

}  // namespace

std::optional<std::string> decode_base64(std::string_view text) {
  auto compact = compact_base64(text);
  if (!compact) return std::nullopt;
  if (compact->empty()) return std::string();
  if (compact->size() > static_cast<std::size_t>(INT_MAX)) return std::nullopt;
  std::string bytes(compact->size() / 4 * 3, '\0');
  const int decoded = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(bytes.data()),
                                      reinterpret_cast<const unsigned char*>(compact->data()),
                                      static_cast<int>(compact->size()));
  if (decoded < 0) return std::nullopt;
  // EVP_DecodeBlock writes the padding's zero bytes too.
  std::size_t padding = 0;
  for (auto it = compact->rbegin(); it != compact->rend() && *it == '='; ++it) ++padding;
  bytes.resize(static_cast<std::size_t>(decoded) - padding);
  return bytes;
}

std::string encode_base64(std::string_view bytes) {
  // EVP_EncodeBlock takes an int; what is encoded here is a certificate authority, far smaller.
  if (bytes.size() > static_cast<std::size_t>(INT_MAX / 4 * 3)) return std::string();
  std::string text(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(text.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  text.resize(static_cast<std::size_t>(written));
  return text;
}

}  // namespace vc::kubernetes
