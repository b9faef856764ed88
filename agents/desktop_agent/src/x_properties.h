// x_properties.h — reading window properties without leaking Xlib's buffers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <X11/Xlib.h>

#include "x_connection.h"

namespace vc::desktop_agent {

// Format-32 values (CARDINAL, WINDOW, ATOM); nullopt when absent or of another type.
std::optional<std::vector<unsigned long>> read_cardinals(XConnection& x, Window window,
                                                         Atom property, Atom type);
// Format-8 bytes of `type` (AnyPropertyType for any); nullopt when absent.
std::optional<std::string> read_bytes(XConnection& x, Window window, Atom property, Atom type,
                                      Atom* actual_type = nullptr);
// _NET_WM_NAME as UTF-8, else WM_NAME converted to UTF-8; nullopt when neither exists.
std::optional<std::string> read_title(XConnection& x, Window window);

std::string latin1_as_utf8(const std::string& latin1);

}  // namespace vc::desktop_agent
