// utf8_text.cpp — UTF-8 validation and boundaries for process output (utf8_text.h).
#include "utf8_text.h"

namespace vc::exec_agent {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

bool is_continuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// The length a lead byte announces (2-4), or 0 for a byte that cannot start a sequence of more
// than one byte (ASCII is handled before).
std::size_t announced_length(unsigned char lead) {
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

// The allowed range of the second byte, which rules out overlong forms, surrogates and code
// points past U+10FFFF (Unicode table 3-7).
bool second_byte_fits(unsigned char lead, unsigned char second) {
  switch (lead) {
    case 0xE0: return second >= 0xA0 && second <= 0xBF;
    case 0xED: return second >= 0x80 && second <= 0x9F;
    case 0xF0: return second >= 0x90 && second <= 0xBF;
    case 0xF4: return second >= 0x80 && second <= 0x8F;
    default: return is_continuation(second);
  }
}

// The length of the valid prefix of the sequence starting at `at` (how far it gets before it
// breaks or the bytes end) and whether it is complete.
std::size_t valid_prefix(std::string_view bytes, std::size_t at, std::size_t length) {
  const auto lead = static_cast<unsigned char>(bytes[at]);
  std::size_t taken = 1;
  while (taken < length && at + taken < bytes.size()) {
    const auto next = static_cast<unsigned char>(bytes[at + taken]);
    const bool fits = taken == 1 ? second_byte_fits(lead, next) : is_continuation(next);
    if (!fits) break;
    ++taken;
  }
  return taken;
}

}  // namespace

void append_as_valid_utf8(std::string& text, std::string_view bytes) {
  text.reserve(text.size() + bytes.size());
  std::size_t at = 0;
  while (at < bytes.size()) {
    const auto lead = static_cast<unsigned char>(bytes[at]);
    if (lead < 0x80) {
      // Runs of ASCII, the common case, are copied in one go.
      std::size_t end = at + 1;
      while (end < bytes.size() && static_cast<unsigned char>(bytes[end]) < 0x80) ++end;
      text.append(bytes.substr(at, end - at));
      at = end;
      continue;
    }
    const std::size_t length = announced_length(lead);
    if (length == 0) {
      text.append(kReplacementCharacter);
      ++at;
      continue;
    }
    const std::size_t taken = valid_prefix(bytes, at, length);
    if (taken == length) {
      text.append(bytes.substr(at, length));
    } else {
      text.append(kReplacementCharacter);  // the maximal invalid piece: one replacement
    }
    at += taken;
  }
}

std::size_t incomplete_utf8_tail(std::string_view bytes) {
  // A character is at most 4 bytes, so its start is among the last 3 when it is incomplete.
  const std::size_t look = bytes.size() < 3 ? bytes.size() : 3;
  for (std::size_t back = 1; back <= look; ++back) {
    const std::size_t at = bytes.size() - back;
    const auto byte = static_cast<unsigned char>(bytes[at]);
    if (is_continuation(byte)) continue;
    const std::size_t length = announced_length(byte);
    // Incomplete only if what follows the lead is a valid start of its sequence: an invalid
    // one will never become valid, and is replaced now.
    if (length > back && valid_prefix(bytes, at, length) == back) return back;
    return 0;
  }
  return 0;
}

}  // namespace vc::exec_agent
