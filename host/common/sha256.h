// sha256.h — SHA-256 of a byte string, as 64 lower-case hex digits. The file tools report it
// and compare it to detect a file edited between read and save. Computed by OpenSSL's
// libcrypto.
#pragma once

#include <string>
#include <string_view>

namespace vc {

// Any thread.
std::string sha256_hex(std::string_view bytes);

}  // namespace vc
