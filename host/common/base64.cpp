// base64.cpp — see base64.h.
#include "common/base64.h"

#include <openssl/evp.h>

namespace vc {
namespace {

// EVP_EncodeBlock and EVP_DecodeBlock take an int length; larger inputs go in slices whose
// length is a multiple of 3 (encoding) or 4 (decoding), so the slices join seamlessly.
constexpr size_t kSliceBytes = size_t{3} << 28;

const unsigned char* bytes_of(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.resize((bytes.size() + 2) / 3 * 4);
  size_t written = 0;
  for (size_t at = 0; at < bytes.size(); at += kSliceBytes) {
    const std::string_view slice = bytes.substr(at, kSliceBytes);
    written += static_cast<size_t>(
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data() + written), bytes_of(slice),
                        static_cast<int>(slice.size())));
  }
  out.resize(written);
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  // EVP_DecodeBlock trims surrounding whitespace and reports padding as zero bytes: strip the
  // padding here and accept only what re-encodes to exactly `text`.
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  std::string out;
  out.resize(text.size() / 4 * 3);
  size_t written = 0;
  const size_t slice_chars = kSliceBytes / 3 * 4;
  for (size_t at = 0; at < text.size(); at += slice_chars) {
    const std::string_view slice = text.substr(at, slice_chars);
    const int decoded =
        EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data() + written), bytes_of(slice),
                        static_cast<int>(slice.size()));
    if (decoded < 0) return std::nullopt;
    written += static_cast<size_t>(decoded);
  }
  out.resize(written - padding);
  if (base64_encode(out) != text) return std::nullopt;
  return out;
}

}  // namespace vc
