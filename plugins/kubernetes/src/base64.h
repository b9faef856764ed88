// base64.h — standard base64 (RFC 4648 §4, with padding) as kubeconfig *-data fields and
// KUBERNETES_EXEC_INFO carry PEM, through OpenSSL's EVP coder.
//
// Decoding accepts what Go's encoding/base64 StdEncoding accepts in a kubeconfig (line breaks
// are ignored, as are spaces and tabs that YAML folding may leave) and refuses anything else:
// other characters, a length that is not a multiple of four, padding before the end.
//
// Pure functions. Any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vc::kubernetes {

// The bytes `text` encodes, or nullopt when it is not valid base64.
std::optional<std::string> decode_base64(std::string_view text);

// `bytes` as base64 on one line, padded.
std::string encode_base64(std::string_view bytes);

}  // namespace vc::kubernetes
