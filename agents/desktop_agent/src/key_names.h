// key_names.h — xdotool's key syntax: chords joined by '+', chords separated by spaces.
#pragma once

#include <string>
#include <vector>

#include <X11/X.h>

namespace vc::desktop_agent {

using Chord = std::vector<KeySym>;

// Keysym names as X spells them, the aliases ctrl/control/shift/alt/super/win/meta/enter/
// esc/del/pgup/pgdn/space in any case, a single character, or a name that is a keysym's in
// another case (xkbcommon's case-insensitive lookup). `invalid_argument` "Unknown key …"
// for anything else, before anything is pressed.
std::vector<Chord> parse_keys(const std::string& keys);

// One name; NoSymbol when unknown.
KeySym keysym_for_name(const std::string& name);

// The keysym that types one Unicode character (U+XXXX keysyms for characters without a name).
KeySym keysym_for_character(char32_t character);

// Decodes valid UTF-8 (the JSON parser has checked it) into code points.
std::u32string decode_utf8(const std::string& text);

}  // namespace vc::desktop_agent
