// desktop_entry.h — finding an application's .desktop file in the XDG data folders.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "session_env.h"

namespace vc::desktop_agent {

struct DesktopEntry {
  std::string path;
  std::vector<std::string> argv;  // Exec, field codes dropped
  bool terminal = false;
};

// `id` as a desktop file id ("mousepad", "org.xfce.mousepad", "xfce4-terminal.desktop"); a
// bare name also matches a reverse-DNS id that ends in it (mousepad → org.xfce.mousepad).
std::optional<DesktopEntry> find_desktop_entry(const std::string& id,
                                               const Environment& environment);

}  // namespace vc::desktop_agent
