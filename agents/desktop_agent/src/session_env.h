// session_env.h — the environment of the running Xfce session, so that what the agent starts
// behaves as if started from the panel (same D-Bus session, runtime and XDG folders).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace vc::desktop_agent {

using Environment = std::map<std::string, std::string>;

// The panel's (or another Xfce process's) environment when the session runs.
std::optional<Environment> session_process_environment(const std::string& display);

// The session bus address: the Xfce session's own, else the file dbus-launch writes for this
// display (~/.dbus/session-bus/<machine-id>-<display number>).
std::optional<std::string> session_bus_address(const std::string& display);

// The environment for a child: the session's when it runs, else the agent's own with the
// display and the session bus added.
Environment launch_environment(const std::string& display);

std::vector<std::string> environment_strings(const Environment& environment);
Environment own_environment();

}  // namespace vc::desktop_agent
