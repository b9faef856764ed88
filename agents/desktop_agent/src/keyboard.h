// keyboard.h — turning keysyms into key presses on whatever layout the server has.
//
// A keysym the layout produces is pressed on its key, with Shift for the second level. One
// it does not produce gets a spare keycode (one with no keysyms at all) mapped to it for the
// time of the action. Applications translate a key event with the keymap they fetch when they
// read it, so a spare keycode is only remapped again, and finally restored, after the focused
// application answered a _NET_WM_PING sent behind the keys: by then it has read them.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include <X11/Xlib.h>

#include "x_connection.h"

namespace vc::desktop_agent {

struct Stroke {
  KeyCode code = 0;
  bool shift = false;
};

class Keyboard {
 public:
  explicit Keyboard(XConnection& x);

  // How to press `sym`; may map a spare keycode (released by finish()).
  Stroke stroke_for(KeySym sym);
  // The keycode of a modifier keysym such as Control_L.
  KeyCode modifier_code(KeySym sym);
  void key(KeyCode code, bool down);
  // Presses the stroke's key with Shift around it when needed (down and up).
  void tap(const Stroke& stroke);
  // Waits until the focused application has read the keys sent so far, then gives the spare
  // keycodes back to nobody. Call at the end of every action that pressed keys.
  void finish();
  // Releases Caps Lock for typing; restore_caps_lock() gives it back.
  void suspend_caps_lock();
  void restore_caps_lock();

 private:
  struct Slot {
    KeyCode code = 0;
    KeySym sym = NoSymbol;
    bool used_in_action = false;
  };

  void ensure_loaded();
  void load_mapping();
  void map_slot(Slot& slot, KeySym sym);
  void sync_with_focused_application();
  void on_event(XEvent& event);

  XConnection& x_;
  std::uint64_t generation_ = 0;
  bool mapping_dirty_ = true;
  int min_keycode_ = 8;
  int max_keycode_ = 255;
  std::unordered_map<KeySym, Stroke> by_keysym_;
  std::unordered_map<std::uint32_t, Stroke> by_character_;
  std::vector<Slot> slots_;
  bool slots_dirty_ = false;
  int own_mapping_changes_ = 0;
  bool caps_suspended_ = false;
  // _NET_WM_PING replies we are waiting for, by the token sent as timestamp.
  long ping_token_ = 0;
  bool ping_answered_ = false;
};

}  // namespace vc::desktop_agent
