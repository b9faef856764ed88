// dialog_commit.h — a key that answers a dialog settles when the dialog has answered.
//
// Return, Enter or Escape in a dialog (a save dialog, a confirmation) makes the application do
// its work (write the file, check the name) and only then close the dialog, often a few
// hundred milliseconds after the key drew its last pixel: the quiet period of settling is over
// before the dialog goes, and the screen the action reports still shows it. So such a key, sent
// while a dialog is in front, also waits (a bounded time) for the window list to change: the
// dialog gone, or another window come (the application asking again, "replace the file?").
#pragma once

#include <string>

#include <X11/Xlib.h>

#include "protocol.h"
#include "windows.h"
#include "x_connection.h"

namespace vc::desktop_agent {

// Whether `action` ends with a key that answers a dialog: press_keys whose last key is Return,
// KP_Enter or Escape, or type whose text ends with a line break.
bool answers_dialog(const std::string& action, const Request& request);

// The window in front when it is a dialog (transient for another window, or of the dialog
// window type); None otherwise.
Window dialog_in_front(XConnection& x, Windows& windows);

// Waits up to `ms` for the window list to change while `dialog` is still listed. True when it
// changed (something more to settle); false when the dialog was already gone or nothing
// changed in time.
bool wait_for_dialog_answer(Windows& windows, Window dialog, int ms);

}  // namespace vc::desktop_agent
