// state_directory.cpp — see state_directory.h.
#include "cli/state_directory.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

namespace vc::cli {
namespace {

std::filesystem::path home_directory() {
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/') return home;
  if (const passwd* entry = getpwuid(getuid()); entry != nullptr && entry->pw_dir != nullptr) {
    return entry->pw_dir;
  }
  return std::filesystem::temp_directory_path();
}

}  // namespace

std::filesystem::path default_state_dir() {
  if (const char* xdg = std::getenv("XDG_STATE_HOME"); xdg != nullptr && xdg[0] == '/') {
    return std::filesystem::path(xdg) / "mcp-virtual-computer";
  }
  return home_directory() / ".local" / "state" / "mcp-virtual-computer";
}

std::filesystem::path plugin_state_dir(const std::filesystem::path& state_dir,
                                       const std::string& plugin_id) {
  return state_dir / plugin_id;
}

}  // namespace vc::cli
