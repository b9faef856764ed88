// python_style_json.cpp — see python_style_json.h.
#include "mcp/python_style_json.h"

#include <cmath>
#include <cstdint>
#include <string_view>

namespace vc::mcp {
namespace {

constexpr char32_t kReplacementCharacter = 0xFFFD;

void append_u_escape(std::string& out, uint32_t code_unit) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(code_unit >> shift) & 0xF];
}

// Decodes one UTF-8 sequence at text[pos] and advances pos. Malformed input yields U+FFFD per
// "maximal subpart" (Unicode §3.9, what Python's decoder does): an invalid lead byte is one
// replacement; a truncated or broken sequence is one replacement for its valid prefix.
char32_t decode_utf8(std::string_view text, size_t& pos) {
  const auto byte_at = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte_at(pos);
  if (lead < 0x80) {
    ++pos;
    return lead;
  }
  size_t length = 0;
  char32_t code_point = 0;
  unsigned char second_min = 0x80;  // the second byte's range excludes overlongs/surrogates
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code_point = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code_point = lead & 0x0F;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code_point = lead & 0x07;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    ++pos;
    return kReplacementCharacter;
  }
  size_t used = 1;
  for (; used < length && pos + used < text.size(); ++used) {
    const unsigned char trail = byte_at(pos + used);
    const unsigned char low = used == 1 ? second_min : 0x80;
    const unsigned char high = used == 1 ? second_max : 0xBF;
    if (trail < low || trail > high) break;
    code_point = (code_point << 6) | (trail & 0x3F);
  }
  pos += used;
  return used == length ? code_point : kReplacementCharacter;
}

void append_string(std::string& out, std::string_view text) {
  out += '"';
  size_t pos = 0;
  while (pos < text.size()) {
    const char32_t c = decode_utf8(text, pos);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (c >= 0x20 && c <= 0x7E) {
      out += static_cast<char>(c);
    } else if (c <= 0xFFFF) {
      append_u_escape(out, c);
    } else {
      const char32_t v = c - 0x10000;
      append_u_escape(out, 0xD800 + (v >> 10));
      append_u_escape(out, 0xDC00 + (v & 0x3FF));
    }
  }
  out += '"';
}

// Python's float repr: the shortest round-trip digits, fixed notation for decimal exponents
// -4 < e <= 16, otherwise scientific with a signed two-digit exponent. nlohmann produces the
// same text except that it switches to scientific one decade earlier (at 1e15), so that decade
// is rewritten into fixed notation here.
std::string python_float_repr(double number) {
  std::string text = Json(number).dump();
  const size_t e = text.find("e+15");
  if (e == std::string::npos) return text;
  const bool negative = text[0] == '-';
  std::string digits;
  for (size_t i = negative ? 1 : 0; i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  constexpr size_t kIntegerDigits = 16;  // d.ddd e+15 has 16 digits before the point
  if (digits.size() < kIntegerDigits) digits.append(kIntegerDigits - digits.size(), '0');
  std::string fraction = digits.substr(kIntegerDigits);
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict, its bug 105329) about
  // `"literal" + std::string` chains once they are inlined at -O2.
  std::string fixed = negative ? "-" : "";
  fixed.append(digits, 0, kIntegerDigits).append(".").append(fraction.empty() ? "0" : fraction);
  return fixed;
}

void append_float(std::string& out, double number) {
  if (std::isnan(number)) {
    out += "NaN";
  } else if (std::isinf(number)) {
    out += number > 0 ? "Infinity" : "-Infinity";
  } else {
    out += python_float_repr(number);
  }
}

void append_value(std::string& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: out += "null"; return;
    case Json::value_t::boolean: out += value.get<bool>() ? "true" : "false"; return;
    case Json::value_t::number_integer: out += std::to_string(value.get<int64_t>()); return;
    case Json::value_t::number_unsigned: out += std::to_string(value.get<uint64_t>()); return;
    case Json::value_t::number_float: append_float(out, value.get<double>()); return;
    case Json::value_t::string: append_string(out, value.get_ref<const std::string&>()); return;
    case Json::value_t::array: {
      out += '[';
      bool first = true;
      for (const auto& item : value) {
        if (!first) out += ", ";
        first = false;
        append_value(out, item);
      }
      out += ']';
      return;
    }
    case Json::value_t::object: {
      out += '{';
      bool first = true;
      for (const auto& [key, item] : value.items()) {
        if (!first) out += ", ";
        first = false;
        append_string(out, key);
        out += ": ";
        append_value(out, item);
      }
      out += '}';
      return;
    }
    case Json::value_t::binary:
    case Json::value_t::discarded: out += "null"; return;
  }
}

}  // namespace

std::string dump_python_style(const Json& value) {
  std::string out;
  append_value(out, value);
  return out;
}

}  // namespace vc::mcp
