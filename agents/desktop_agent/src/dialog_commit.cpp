// dialog_commit.cpp — see dialog_commit.h.
#include "dialog_commit.h"

#include <X11/Xatom.h>
#include <X11/Xutil.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "x_properties.h"

namespace vc::desktop_agent {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The last key of a press_keys sequence ("ctrl+s Return" -> "return").
std::string last_key(const std::string& keys) {
  const std::size_t end = keys.find_last_not_of(" \t");
  if (end == std::string::npos) return "";
  const std::size_t start = keys.find_last_of(" \t+", end);
  return lower(keys.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1));
}

bool listed(const std::vector<Window>& windows, Window window) {
  return std::find(windows.begin(), windows.end(), window) != windows.end();
}

}  // namespace

bool answers_dialog(const std::string& action, const Request& request) {
  if (action == "press_keys") {
    const std::string key = last_key(request.string("keys"));
    return key == "return" || key == "enter" || key == "kp_enter" || key == "escape" ||
           key == "esc";
  }
  if (action == "type") {
    const std::string& text = request.string("text");
    return !text.empty() && (text.back() == '\n' || text.back() == '\r');
  }
  return false;
}

Window dialog_in_front(XConnection& x, Windows& windows) {
  const Window active = windows.active_window();
  if (active == None) return None;
  XConnection::ErrorTrap trap(x);
  Window owner = None;
  if (XGetTransientForHint(x.display(), active, &owner) && owner != None && owner != active) {
    return active;
  }
  const auto types = read_cardinals(x, active, x.atom("_NET_WM_WINDOW_TYPE"), XA_ATOM);
  const Atom dialog = x.atom("_NET_WM_WINDOW_TYPE_DIALOG");
  if (types && std::any_of(types->begin(), types->end(), [&](unsigned long type) {
        return static_cast<Atom>(type) == dialog;
      })) {
    return active;
  }
  return None;
}

bool wait_for_dialog_answer(Windows& windows, Window dialog, int ms) {
  const std::vector<Window> before = windows.client_list();
  if (!listed(before, dialog)) return false;
  return windows.wait_for(dialog, ms, [&] { return windows.client_list() != before; });
}

}  // namespace vc::desktop_agent
