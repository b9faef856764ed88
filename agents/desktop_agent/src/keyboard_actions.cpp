// keyboard_actions.cpp — press_keys (xdotool key syntax) and type (any Unicode text).
#include "input_actions.h"
#include "key_names.h"

#include <X11/keysym.h>

namespace vc::desktop_agent {
namespace {

// Between chords, as xdotool's default key delay: some applications drop shortcuts that
// follow each other within the same millisecond.
constexpr int kChordGapMs = 8;

std::string code_point_text(char32_t c) {
  char text[16];
  snprintf(text, sizeof text, "U+%04X", static_cast<unsigned>(c));
  return text;
}

// Keeps the keyboard consistent when an action stops half-way: spare keycodes restored,
// Caps Lock given back.
class KeyboardScope {
 public:
  explicit KeyboardScope(Keyboard& keyboard) : keyboard_(keyboard) {}
  ~KeyboardScope() {
    try {
      keyboard_.finish();
      keyboard_.restore_caps_lock();
    } catch (...) {
      // The server went away; the next connection starts with a fresh keyboard.
    }
  }
  KeyboardScope(const KeyboardScope&) = delete;
  KeyboardScope& operator=(const KeyboardScope&) = delete;

 private:
  Keyboard& keyboard_;
};

}  // namespace

json press_keys_action(XConnection& x, Keyboard& keyboard, const Request& request) {
  const std::string& keys = request.string("keys");
  const std::vector<Chord> chords = parse_keys(keys);
  const int repeat = static_cast<int>(request.integer_or("repeat", 1, 100, 1));
  const int hold_ms = static_cast<int>(request.integer_or("hold_ms", 0, 10000, 0));
  x.display();
  KeyboardScope scope(keyboard);
  bool first = true;
  for (int round = 0; round < repeat; ++round) {
    for (const Chord& chord : chords) {
      if (!first) x.pump_for(kChordGapMs);
      first = false;
      // Each key down in order (with Shift before a key that needs its second level), the
      // hold, then everything up in reverse.
      std::vector<KeyCode> down;
      bool shift_down = false;
      const KeyCode shift = keyboard.modifier_code(XK_Shift_L);
      for (KeySym sym : chord) {
        const Stroke stroke = keyboard.stroke_for(sym);
        if (stroke.shift && !shift_down) {
          keyboard.key(shift, true);
          down.push_back(shift);
          shift_down = true;
        }
        if (stroke.code == shift) shift_down = true;
        keyboard.key(stroke.code, true);
        down.push_back(stroke.code);
      }
      x.flush();
      if (hold_ms > 0) x.pump_for(hold_ms);
      for (auto it = down.rbegin(); it != down.rend(); ++it) keyboard.key(*it, false);
      x.flush();
    }
  }
  keyboard.finish();
  x.sync();
  return json{{"keys", keys}, {"repeat", repeat}};
}

json type_action(XConnection& x, Keyboard& keyboard, const Request& request) {
  const std::string& text = request.string("text");
  if (text.empty()) throw_invalid("'text' must not be empty.");
  const int delay_ms = static_cast<int>(request.integer_or("delay_ms", 0, 100, 2));
  const std::u32string characters = decode_utf8(text);
  std::vector<KeySym> syms;
  syms.reserve(characters.size());
  for (std::size_t i = 0; i < characters.size(); ++i) {
    const char32_t c = characters[i];
    if (c == U'\r' && i + 1 < characters.size() && characters[i + 1] == U'\n') continue;
    if (c == U'\n' || c == U'\r' || c == U'\t') {
      syms.push_back(keysym_for_character(c));
      continue;
    }
    if (c < 0x20 || (c >= 0x7F && c < 0xA0)) {
      throw_invalid("The text holds the control character " + code_point_text(c) +
                    ", which cannot be typed; only \\n (Return) and \\t (Tab) can.");
    }
    if (c >= 0xD800 && c <= 0xDFFF) throw_invalid("The text holds an unpaired surrogate.");
    syms.push_back(keysym_for_character(c));
  }
  x.display();
  KeyboardScope scope(keyboard);
  keyboard.suspend_caps_lock();
  for (std::size_t i = 0; i < syms.size(); ++i) {
    keyboard.tap(keyboard.stroke_for(syms[i]));
    if (delay_ms > 0) {
      x.flush();
      x.pump_for(delay_ms);
    }
  }
  keyboard.finish();
  keyboard.restore_caps_lock();
  x.sync();
  return json{{"characters", count_code_points(text)}};
}

}  // namespace vc::desktop_agent
