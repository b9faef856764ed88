// damage_wait.h — wait_for_screen: XDamage on the root window tells when anything is drawn.
//
// The damage object reports "non-empty" once, then stays silent until its damage is
// subtracted: an idle agent costs the server nothing, and a wait collects exactly the areas
// drawn since its last look.
#pragma once

#include <cstdint>
#include <vector>

#include <X11/Xlib.h>
#include <X11/extensions/Xdamage.h>

#include "protocol.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class DamageWatch {
 public:
  explicit DamageWatch(XConnection& x);
  json wait_action(const Request& request);

 private:
  void ensure();
  // Takes what was drawn since the last call; true when any of it meets `region`.
  bool collect(const Rect& region);
  void on_event(XEvent& event);

  XConnection& x_;
  std::uint64_t generation_ = 0;
  int event_base_ = 0;
  Damage damage_ = 0;
  XserverRegion parts_ = 0;
  bool notified_ = false;
};

}  // namespace vc::desktop_agent
