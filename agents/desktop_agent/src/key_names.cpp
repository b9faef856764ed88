// key_names.cpp — name to keysym, following xdotool where it defines something.
#include "key_names.h"

#include <cctype>

#include <X11/Xlib.h>
#include <X11/keysym.h>
#include <xkbcommon/xkbcommon.h>

#include "agent_error.h"

namespace vc::desktop_agent {
namespace {

std::string lowercase(const std::string& text) {
  std::string out = text;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

KeySym alias(const std::string& name) {
  const std::string key = lowercase(name);
  struct Alias {
    const char* name;
    KeySym sym;
  };
  static const Alias kAliases[] = {
      {"ctrl", XK_Control_L}, {"control", XK_Control_L}, {"shift", XK_Shift_L},
      {"alt", XK_Alt_L},      {"super", XK_Super_L},     {"win", XK_Super_L},
      {"meta", XK_Meta_L},    {"enter", XK_Return},      {"esc", XK_Escape},
      {"del", XK_Delete},     {"pgup", XK_Prior},        {"pgdn", XK_Next},
      {"space", XK_space},
  };
  for (const Alias& entry : kAliases) {
    if (key == entry.name) return entry.sym;
  }
  return NoSymbol;
}

}  // namespace

std::u32string decode_utf8(const std::string& text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    char32_t value = 0;
    int extra = 0;
    if (c < 0x80) {
      value = c;
    } else if ((c & 0xE0) == 0xC0) {
      value = c & 0x1F;
      extra = 1;
    } else if ((c & 0xF0) == 0xE0) {
      value = c & 0x0F;
      extra = 2;
    } else {
      value = c & 0x07;
      extra = 3;
    }
    ++i;
    for (int k = 0; k < extra && i < text.size(); ++k, ++i) {
      value = (value << 6) | (static_cast<unsigned char>(text[i]) & 0x3F);
    }
    out.push_back(value);
  }
  return out;
}

KeySym keysym_for_character(char32_t character) {
  if (character == U'\n' || character == U'\r') return XK_Return;
  if (character == U'\t') return XK_Tab;
  // Latin-1 keysyms are the code points themselves; xkbcommon knows the legacy names
  // (EuroSign, Cyrillic, Greek, …) and answers 0x01000000 + code point for the rest.
  if ((character >= 0x20 && character < 0x7F) || (character >= 0xA0 && character <= 0xFF)) {
    return character;
  }
  const xkb_keysym_t sym = xkb_utf32_to_keysym(static_cast<uint32_t>(character));
  if (sym != XKB_KEY_NoSymbol) return sym;
  return 0x01000000 + character;
}

KeySym keysym_for_name(const std::string& name) {
  if (name.empty()) return NoSymbol;
  KeySym sym = alias(name);
  if (sym != NoSymbol) return sym;
  sym = XStringToKeysym(name.c_str());
  if (sym != NoSymbol) return sym;
  const std::u32string characters = decode_utf8(name);
  if (characters.size() == 1 && characters[0] >= 0x20) return keysym_for_character(characters[0]);
  if (characters.size() > 1) {
    // "return", "page_down", "f5": a keysym name in another case. One letter stays
    // case-sensitive ("a" and "A" are different keys).
    const xkb_keysym_t found = xkb_keysym_from_name(name.c_str(), XKB_KEYSYM_CASE_INSENSITIVE);
    if (found != XKB_KEY_NoSymbol) return found;
  }
  return NoSymbol;
}

std::vector<Chord> parse_keys(const std::string& keys) {
  std::vector<Chord> chords;
  std::size_t i = 0;
  while (i < keys.size()) {
    while (i < keys.size() && std::isspace(static_cast<unsigned char>(keys[i]))) ++i;
    if (i >= keys.size()) break;
    std::size_t end = i;
    while (end < keys.size() && !std::isspace(static_cast<unsigned char>(keys[end]))) ++end;
    const std::string chord_text = keys.substr(i, end - i);
    Chord chord;
    std::size_t start = 0;
    for (;;) {
      const std::size_t plus = chord_text.find('+', start);
      const std::string name = chord_text.substr(start, plus == std::string::npos
                                                            ? std::string::npos
                                                            : plus - start);
      const KeySym sym = keysym_for_name(name);
      if (sym == NoSymbol) throw_invalid("Unknown key '" + name + "' in '" + keys + "'.");
      chord.push_back(sym);
      if (plus == std::string::npos) break;
      start = plus + 1;
    }
    chords.push_back(std::move(chord));
    i = end;
  }
  if (chords.empty()) throw_invalid("'keys' must name at least one key, such as 'ctrl+s'.");
  return chords;
}

}  // namespace vc::desktop_agent
