// utf8_repair.cpp — a strict UTF-8 decoder that substitutes instead of failing.
#include "common/utf8_repair.h"

#include <cstdint>

namespace vc {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

struct LeadByte {
  int continuation_bytes = 0;  // 0: not a valid lead byte
  // The allowed range of the first continuation byte; the narrow ranges after E0, ED, F0 and
  // F4 are what exclude overlongs, surrogates and values above U+10FFFF.
  uint8_t first_low = 0x80;
  uint8_t first_high = 0xBF;
};

LeadByte classify(uint8_t byte) {
  if (byte >= 0xC2 && byte <= 0xDF) return {1, 0x80, 0xBF};
  if (byte == 0xE0) return {2, 0xA0, 0xBF};
  if (byte == 0xED) return {2, 0x80, 0x9F};
  if (byte >= 0xE1 && byte <= 0xEF) return {2, 0x80, 0xBF};
  if (byte == 0xF0) return {3, 0x90, 0xBF};
  if (byte == 0xF4) return {3, 0x80, 0x8F};
  if (byte >= 0xF1 && byte <= 0xF3) return {3, 0x80, 0xBF};
  return {};  // 80..C1 (continuation or overlong lead) and F5..FF
}

// How many bytes from `start` form a valid sequence led by `lead` (0 when the
// sequence is ill-formed: then `consumed` is the length of its maximal subpart).
size_t valid_sequence_length(std::string_view bytes, size_t start, const LeadByte& lead,
                             size_t& consumed) {
  consumed = 1;
  for (int index = 1; index <= lead.continuation_bytes; ++index) {
    size_t position = start + static_cast<size_t>(index);
    if (position >= bytes.size()) return 0;
    auto byte = static_cast<uint8_t>(bytes[position]);
    uint8_t low = index == 1 ? lead.first_low : 0x80;
    uint8_t high = index == 1 ? lead.first_high : 0xBF;
    if (byte < low || byte > high) return 0;
    ++consumed;
  }
  return consumed;
}

}  // namespace

std::string repair_utf8(std::string_view bytes) {
  std::string text;
  text.reserve(bytes.size());
  size_t position = 0;
  while (position < bytes.size()) {
    auto byte = static_cast<uint8_t>(bytes[position]);
    if (byte < 0x80) {
      text.push_back(static_cast<char>(byte));
      ++position;
      continue;
    }
    LeadByte lead = classify(byte);
    size_t consumed = 1;
    size_t length =
        lead.continuation_bytes == 0 ? 0 : valid_sequence_length(bytes, position, lead, consumed);
    if (length == 0) {
      text.append(kReplacementCharacter);
    } else {
      text.append(bytes.substr(position, length));
    }
    position += consumed;
  }
  return text;
}

std::optional<size_t> first_invalid_utf8(std::string_view bytes) {
  size_t position = 0;
  while (position < bytes.size()) {
    auto byte = static_cast<uint8_t>(bytes[position]);
    if (byte < 0x80) {
      ++position;
      continue;
    }
    LeadByte lead = classify(byte);
    size_t consumed = 1;
    if (lead.continuation_bytes == 0 || valid_sequence_length(bytes, position, lead, consumed) == 0) {
      return position;
    }
    position += consumed;
  }
  return std::nullopt;
}

std::string utf8_prefix(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0u) == 0x80u) --end;
  return std::string(text.substr(0, end));
}

}  // namespace vc
