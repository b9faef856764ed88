// launch.h — the `launch` action: URLs and paths through xdg-open, applications by desktop
// entry or command line, each detached and given the desktop session's environment.
#pragma once

#include "protocol.h"
#include "windows.h"
#include "x_connection.h"

namespace vc::desktop_agent {

json launch_action(XConnection& x, Windows& windows, const Request& request);

}  // namespace vc::desktop_agent
