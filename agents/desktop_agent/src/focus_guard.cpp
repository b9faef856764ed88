// focus_guard.cpp — the working window is read off EWMH properties; giving the focus back is
// an _NET_ACTIVE_WINDOW request waited for on the window manager's property events.
#include "focus_guard.h"

#include <X11/Xatom.h>
#include <X11/Xutil.h>

#include <algorithm>

#include "x_properties.h"

namespace vc::desktop_agent {
namespace {

constexpr int kFocusWaitMs = 1000;
// Dialogs of dialogs are followed this deep to their owner.
constexpr std::size_t kOwnerDepth = 4;

// Desktops and panels are never where the agent types.
bool is_background(XConnection& x, Window window) {
  auto types = read_cardinals(x, window, x.atom("_NET_WM_WINDOW_TYPE"), XA_ATOM);
  if (!types) return false;
  const Atom desktop = x.atom("_NET_WM_WINDOW_TYPE_DESKTOP");
  const Atom dock = x.atom("_NET_WM_WINDOW_TYPE_DOCK");
  return std::any_of(types->begin(), types->end(), [&](unsigned long type) {
    return static_cast<Atom>(type) == desktop || static_cast<Atom>(type) == dock;
  });
}

}  // namespace

void mark_show_window(XConnection& x, Window window, const std::string& what) {
  XConnection::ErrorTrap trap(x);
  XChangeProperty(x.display(), window, x.atom(kShowsProperty), x.atom("UTF8_STRING"), 8,
                  PropModeReplace, reinterpret_cast<const unsigned char*>(what.data()),
                  static_cast<int>(what.size()));
}

void unmark_show_window(XConnection& x, Window window) {
  XConnection::ErrorTrap trap(x);
  XDeleteProperty(x.display(), window, x.atom(kShowsProperty));
}

std::string show_window_mark(XConnection& x, Window window) {
  return read_bytes(x, window, x.atom(kShowsProperty), x.atom("UTF8_STRING")).value_or("");
}

FocusGuard::FocusGuard(XConnection& x, Windows& windows) : x_(x), windows_(windows) {
  const Window active = windows_.active_window();
  if (active == None || is_background(x_, active) || !show_window_mark(x_, active).empty()) return;
  const std::vector<Window> managed = windows_.client_list();
  if (std::find(managed.begin(), managed.end(), active) == managed.end()) return;
  working_ = active;
  XConnection::ErrorTrap trap(x_);
  for (Window window = active; window != None && owners_.size() < kOwnerDepth;) {
    owners_.push_back(window);
    Window owner = None;
    if (!XGetTransientForHint(x_.display(), window, &owner) || owner == window) break;
    window = owner;
  }
}

void FocusGuard::give_back() {
  if (working_ == None) return;
  const std::vector<Window> managed = windows_.client_list();
  const auto still_there = std::find_first_of(owners_.begin(), owners_.end(), managed.begin(),
                                              managed.end());
  if (still_there == owners_.end()) return;
  const Window target = *still_there;
  if (windows_.active_window() == target) return;
  windows_.activate(target);
  windows_.wait_for(target, kFocusWaitMs, [&] { return windows_.active_window() == target; });
}

}  // namespace vc::desktop_agent
