// focus_guard.h — show, never steal: the window the agent works in keeps the focus while the
// agent shows the person what its tools do (the MCP Terminal, a file it read or wrote).
//
// The windows the agent shows things in carry the _VC_AGENT_SHOWS property ("terminal",
// "folder", "file:<path>"). A show notes the working window first — the active window, unless
// that is the desktop, a panel or a show window — and gives the focus back to it when done,
// so the next `type` goes where the agent put it. A working window that closes meanwhile (a save
// dialog the agent's last Return closed while the terminal showed a command) hands the focus
// back to the window it belonged to (WM_TRANSIENT_FOR), where the window manager would have
// put it. With no working window (nothing but the desktop had the focus) the show stays in
// front: nobody is typing anywhere.
#pragma once

#include <string>
#include <vector>

#include <X11/Xlib.h>

#include "windows.h"
#include "x_connection.h"

namespace vc::desktop_agent {

inline constexpr const char* kShowsProperty = "_VC_AGENT_SHOWS";

// Marks `window` as one the agent shows things in; `what` says what ("terminal", ...).
void mark_show_window(XConnection& x, Window window, const std::string& what);
// Removes the mark: the agent took the window over (launched the file it shows).
void unmark_show_window(XConnection& x, Window window);
// The window's mark, or empty.
std::string show_window_mark(XConnection& x, Window window);

class FocusGuard {
 public:
  FocusGuard(XConnection& x, Windows& windows);

  // The window the agent worked in when the guard was made, or None.
  Window working() const { return working_; }
  // Activates the working window again when another took the focus meanwhile (waits at most
  // 1 s for the window manager); when it is gone, the nearest window it was transient for.
  // Does nothing without a working window or once it and its owners are all gone.
  void give_back();

 private:
  XConnection& x_;
  Windows& windows_;
  Window working_ = None;
  // working_, then the window it is transient for, and so on (at most a few levels).
  std::vector<Window> owners_;
};

}  // namespace vc::desktop_agent
