// message_text.cpp — escaping and cutting outside text for messages, code point by code point.
#include "message_text.h"

#include <cstdint>

namespace vc::kubernetes {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_escaped_byte(std::string& out, unsigned char byte) {
  out += "\\x";
  out += kHex[byte >> 4];
  out += kHex[byte & 0xf];
}

// The length of the valid UTF-8 sequence at the start of `text`, 0 when it is not one
// (overlong forms, surrogates and code points past U+10FFFF are not valid).
std::size_t utf8_sequence_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  std::size_t length = 0;
  std::uint32_t minimum = 0;
  std::uint32_t code_point = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xe0) == 0xc0) {
    length = 2, minimum = 0x80, code_point = lead & 0x1fu;
  } else if ((lead & 0xf0) == 0xe0) {
    length = 3, minimum = 0x800, code_point = lead & 0x0fu;
  } else if ((lead & 0xf8) == 0xf0) {
    length = 4, minimum = 0x10000, code_point = lead & 0x07u;
  } else {
    return 0;
  }
  if (text.size() < length) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    const auto next = static_cast<unsigned char>(text[i]);
    if ((next & 0xc0) != 0x80) return 0;
    code_point = (code_point << 6) | (next & 0x3fu);
  }
  if (code_point < minimum || code_point > 0x10ffff) return 0;
  if (code_point >= 0xd800 && code_point <= 0xdfff) return 0;
  return length;
}

std::string escape_for_message(std::string_view text, std::size_t max_chars, bool quoting) {
  std::string out;
  std::size_t chars = 0;
  while (!text.empty()) {
    if (chars++ == max_chars) {
      out += "…";
      break;
    }
    const auto byte = static_cast<unsigned char>(text[0]);
    const std::size_t length = utf8_sequence_length(text);
    if (length == 0) {
      append_escaped_byte(out, byte);
      text.remove_prefix(1);
      continue;
    }
    if (quoting && (byte == '"' || byte == '\\')) {
      out += '\\';
      out += static_cast<char>(byte);
    } else if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      append_escaped_byte(out, byte);
    } else {
      out.append(text.substr(0, length));
    }
    text.remove_prefix(length);
  }
  return out;
}

}  // namespace

std::string quote_for_message(std::string_view text, std::size_t max_chars) {
  return "\"" + escape_for_message(text, max_chars, true) + "\"";
}

std::string printable_for_message(std::string_view text, std::size_t max_chars) {
  return escape_for_message(text, max_chars, false);
}

}  // namespace vc::kubernetes
