// sha256.h — SHA-256 of a byte string, as 64 lower-case hex digits, and HMAC-SHA256. The file
// tools report the digest and compare it to detect a file edited between read and save; the
// protocol seals the state it hands a client with the HMAC (mcp/request_state.h). Computed by
// OpenSSL's libcrypto.
#pragma once

#include <string>
#include <string_view>

namespace vc {

// Any thread.
std::string sha256_hex(std::string_view bytes);
// Any thread. HMAC-SHA256 of `bytes` under `key`, as 64 lower-case hex digits.
std::string hmac_sha256_hex(std::string_view key, std::string_view bytes);

}  // namespace vc
