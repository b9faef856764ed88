// keyboard.cpp — layout lookup, spare keycodes, and the ping that tells when keys were read.
#include "keyboard.h"

#include <X11/XKBlib.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/XTest.h>
#include <xkbcommon/xkbcommon.h>

#include "agent_error.h"
#include "vc_agent_common/clock.h"
#include "vc_agent_common/log_line.h"

namespace vc::desktop_agent {

using agent_common::log_line;
using agent_common::monotonic_ms;

namespace {

// More than a CJK sentence of distinct characters needs; each extra batch costs one ping.
constexpr std::size_t kMaxSlots = 32;
constexpr int kPingTimeoutMs = 500;
// Without a window that answers pings, the time given to an application to read its keys.
constexpr int kUnsyncedSettleMs = 40;

}  // namespace

Keyboard::Keyboard(XConnection& x) : x_(x) {
  x_.add_event_handler([this](XEvent& event) { on_event(event); });
}

void Keyboard::on_event(XEvent& event) {
  if (event.type == MappingNotify) {
    XRefreshKeyboardMapping(&event.xmapping);
    if (event.xmapping.request != MappingKeyboard) return;
    if (own_mapping_changes_ > 0) {
      --own_mapping_changes_;
      return;
    }
    mapping_dirty_ = true;
    return;
  }
  if (event.type == ClientMessage && ping_token_ != 0 && event.xclient.format == 32 &&
      event.xclient.window == x_.root() &&
      static_cast<Atom>(event.xclient.data.l[0]) == x_.atom("_NET_WM_PING") &&
      event.xclient.data.l[1] == ping_token_) {
    ping_answered_ = true;
  }
}

void Keyboard::ensure_loaded() {
  x_.display();
  if (generation_ != x_.generation()) {
    generation_ = x_.generation();
    slots_.clear();
    slots_dirty_ = false;
    own_mapping_changes_ = 0;
    caps_suspended_ = false;
    mapping_dirty_ = true;
  }
  if (mapping_dirty_) load_mapping();
}

void Keyboard::load_mapping() {
  Display* display = x_.display();
  XDisplayKeycodes(display, &min_keycode_, &max_keycode_);
  int per_keycode = 0;
  const int count = max_keycode_ - min_keycode_ + 1;
  KeySym* map = XGetKeyboardMapping(display, static_cast<KeyCode>(min_keycode_), count,
                                    &per_keycode);
  x_.check_alive();
  if (map == nullptr) throw_failed("The keyboard mapping could not be read.");

  // The group in use picks the pair of core columns (group 1: 0/1, group 2: 2/3).
  XkbStateRec state{};
  int group = 0;
  if (XkbGetState(display, XkbUseCoreKbd, &state) == Success) group = state.group;
  const int base_column = group == 1 ? 2 : 0;

  by_keysym_.clear();
  by_character_.clear();
  std::vector<KeyCode> spare;
  auto is_slot = [this](int code) {
    for (const Slot& slot : slots_) {
      if (slot.code == code) return true;
    }
    return false;
  };
  for (int i = 0; i < count; ++i) {
    const int code = min_keycode_ + i;
    const KeySym* syms = map + static_cast<std::ptrdiff_t>(i) * per_keycode;
    bool empty = true;
    for (int c = 0; c < per_keycode; ++c) empty = empty && syms[c] == NoSymbol;
    if (is_slot(code)) continue;
    if (empty) {
      spare.push_back(static_cast<KeyCode>(code));
      continue;
    }
    KeySym levels[2] = {NoSymbol, NoSymbol};
    if (base_column < per_keycode) levels[0] = syms[base_column];
    if (base_column + 1 < per_keycode) levels[1] = syms[base_column + 1];
    if (levels[1] == NoSymbol && levels[0] != NoSymbol) {
      // A key listing one letter gives its capital with Shift (core protocol rule).
      KeySym lower = NoSymbol, upper = NoSymbol;
      XConvertCase(levels[0], &lower, &upper);
      if (upper != lower && levels[0] == lower) levels[1] = upper;
    }
    for (int level = 0; level < 2; ++level) {
      const KeySym sym = levels[level];
      if (sym == NoSymbol) continue;
      const Stroke stroke{static_cast<KeyCode>(code), level == 1};
      // The first key found wins, and an unshifted level beats a shifted one.
      auto it = by_keysym_.find(sym);
      if (it == by_keysym_.end() || (it->second.shift && !stroke.shift)) by_keysym_[sym] = stroke;
      const std::uint32_t character = xkb_keysym_to_utf32(static_cast<xkb_keysym_t>(sym));
      if (character != 0) {
        auto found = by_character_.find(character);
        if (found == by_character_.end() || (found->second.shift && !stroke.shift)) {
          by_character_[character] = stroke;
        }
      }
    }
  }
  XFree(map);

  // Spare keycodes become slots, from the top: the low ones are the likelier to be given
  // keysyms by a layout change.
  for (auto it = spare.rbegin(); it != spare.rend() && slots_.size() < kMaxSlots; ++it) {
    slots_.push_back(Slot{*it, NoSymbol, false});
  }
  mapping_dirty_ = false;
}

Stroke Keyboard::stroke_for(KeySym sym) {
  ensure_loaded();
  auto it = by_keysym_.find(sym);
  if (it != by_keysym_.end()) return it->second;
  const std::uint32_t character = xkb_keysym_to_utf32(static_cast<xkb_keysym_t>(sym));
  if (character != 0) {
    auto found = by_character_.find(character);
    if (found != by_character_.end()) return found->second;
  }
  for (Slot& slot : slots_) {
    if (slot.sym == sym) {
      slot.used_in_action = true;
      return Stroke{slot.code, false};
    }
  }
  if (slots_.empty()) {
    throw_failed("The keyboard has no spare keycode to type a character its layout lacks.");
  }
  Slot* free_slot = nullptr;
  for (Slot& slot : slots_) {
    if (!slot.used_in_action) {
      free_slot = &slot;
      break;
    }
  }
  if (free_slot == nullptr) {
    // Every slot holds a character sent in this action: the application must have read those
    // keys before one of them may change.
    sync_with_focused_application();
    for (Slot& slot : slots_) slot.used_in_action = false;
    free_slot = &slots_.front();
  }
  map_slot(*free_slot, sym);
  free_slot->used_in_action = true;
  return Stroke{free_slot->code, false};
}

void Keyboard::map_slot(Slot& slot, KeySym sym) {
  KeySym syms[2] = {sym, sym};
  ++own_mapping_changes_;
  XChangeKeyboardMapping(x_.display(), slot.code, 2, syms, 1);
  x_.sync();
  slot.sym = sym;
  slots_dirty_ = true;
}

KeyCode Keyboard::modifier_code(KeySym sym) { return stroke_for(sym).code; }

void Keyboard::key(KeyCode code, bool down) {
  XTestFakeKeyEvent(x_.display(), code, down ? True : False, CurrentTime);
}

void Keyboard::tap(const Stroke& stroke) {
  KeyCode shift = 0;
  if (stroke.shift) {
    shift = modifier_code(XK_Shift_L);
    key(shift, true);
  }
  key(stroke.code, true);
  key(stroke.code, false);
  if (shift != 0) key(shift, false);
}

void Keyboard::sync_with_focused_application() {
  Display* display = x_.display();
  x_.sync();
  Window focus = None;
  int revert = 0;
  XGetInputFocus(display, &focus, &revert);
  const Atom protocols = x_.atom("WM_PROTOCOLS");
  const Atom ping = x_.atom("_NET_WM_PING");
  Window target = None;
  {
    XConnection::ErrorTrap trap(x_);
    Window current = focus;
    for (int depth = 0; depth < 16 && current != None && current != PointerRoot &&
                        current != x_.root();
         ++depth) {
      Atom* list = nullptr;
      int count = 0;
      if (XGetWMProtocols(display, current, &list, &count) != 0) {
        for (int i = 0; i < count; ++i) {
          if (list[i] == ping) target = current;
        }
        XFree(list);
      }
      if (target != None) break;
      Window root = None, parent = None;
      Window* children = nullptr;
      unsigned int child_count = 0;
      if (XQueryTree(display, current, &root, &parent, &children, &child_count) == 0) break;
      if (children != nullptr) XFree(children);
      current = parent;
    }
  }
  x_.check_alive();
  if (target == None) {
    x_.pump_for(kUnsyncedSettleMs);
    return;
  }
  static long counter = 0;
  ping_token_ = 0x5a000000L + (++counter & 0xffffff);
  ping_answered_ = false;
  XEvent event{};
  event.xclient.type = ClientMessage;
  event.xclient.window = target;
  event.xclient.message_type = protocols;
  event.xclient.format = 32;
  event.xclient.data.l[0] = static_cast<long>(ping);
  event.xclient.data.l[1] = ping_token_;
  event.xclient.data.l[2] = static_cast<long>(target);
  {
    XConnection::ErrorTrap trap(x_);
    XSendEvent(display, target, False, NoEventMask, &event);
  }
  const bool answered =
      x_.wait_until(monotonic_ms() + kPingTimeoutMs, [this] { return ping_answered_; });
  if (!answered) log_line("the focused window did not answer _NET_WM_PING within 500 ms");
  ping_token_ = 0;
}

void Keyboard::finish() {
  if (!x_.connected() || generation_ != x_.generation()) return;
  x_.flush();
  if (!slots_dirty_) return;
  sync_with_focused_application();
  KeySym none[2] = {NoSymbol, NoSymbol};
  for (Slot& slot : slots_) {
    if (slot.sym == NoSymbol) continue;
    ++own_mapping_changes_;
    XChangeKeyboardMapping(x_.display(), slot.code, 2, none, 1);
    slot.sym = NoSymbol;
    slot.used_in_action = false;
  }
  slots_dirty_ = false;
  x_.sync();
}

void Keyboard::suspend_caps_lock() {
  ensure_loaded();
  XkbStateRec state{};
  if (XkbGetState(x_.display(), XkbUseCoreKbd, &state) != Success) return;
  if ((state.locked_mods & LockMask) == 0) return;
  XkbLockModifiers(x_.display(), XkbUseCoreKbd, LockMask, 0);
  caps_suspended_ = true;
}

void Keyboard::restore_caps_lock() {
  if (!caps_suspended_ || !x_.connected()) return;
  XkbLockModifiers(x_.display(), XkbUseCoreKbd, LockMask, LockMask);
  caps_suspended_ = false;
  x_.flush();
}

}  // namespace vc::desktop_agent
