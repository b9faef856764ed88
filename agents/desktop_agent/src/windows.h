// windows.h — the window manager's view of the desktop (EWMH) and actions on its windows.
#pragma once

#include <optional>
#include <vector>

#include <X11/Xlib.h>

#include "protocol.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class Windows {
 public:
  explicit Windows(XConnection& x);

  json list_action(const Request& request);
  json action(const Request& request);

  // _NET_CLIENT_LIST; `unavailable` without a window manager.
  std::vector<Window> client_list();
  bool window_manager_running();
  // The list_windows object of one window; nullopt when it is gone.
  std::optional<json> describe(Window window);
  std::optional<json> describe(Window window, Window active);
  Window active_window();
  void activate(Window window);
  // Serves events until `done()` holds or `ms` passed, evaluating `done` only after events
  // concerning `window` or the root arrived (and once at the start).
  bool wait_for(Window window, int ms, const std::function<bool()>& done);

 private:
  void on_event(XEvent& event);
  void send_root_message(Window window, const char* type, long l0, long l1, long l2, long l3,
                         long l4);
  std::vector<std::string> states(Window window);
  bool frame_geometry(Window window, Rect& rect);

  XConnection& x_;
  Window watched_ = None;
  bool event_seen_ = false;
};

std::string window_id_text(Window window);

}  // namespace vc::desktop_agent
