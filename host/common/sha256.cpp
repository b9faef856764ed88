// sha256.cpp — see sha256.h.
#include "common/sha256.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <array>
#include <stdexcept>

namespace vc {
namespace {

std::string hex_of(const std::array<unsigned char, SHA256_DIGEST_LENGTH>& digest) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(digest.size() * 2);
  for (const unsigned char byte : digest) {
    hex += kHex[byte >> 4];
    hex += kHex[byte & 0x0f];
  }
  return hex;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data());
  return hex_of(digest);
}

std::string hmac_sha256_hex(std::string_view key, std::string_view bytes) {
  std::array<unsigned char, SHA256_DIGEST_LENGTH> digest{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), digest.data(),
           &length) == nullptr ||
      length != digest.size()) {
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return hex_of(digest);
}

}  // namespace vc
