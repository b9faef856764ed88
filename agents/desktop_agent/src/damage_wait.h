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

// How an input action's screen settled (DamageWatch::settle).
struct Settled {
  bool effect = false;     // something was drawn after the input
  bool settled = false;    // and then nothing for the quiet period (false: the limit came first)
  std::int64_t waited_ms = 0;
};

class DamageWatch {
 public:
  explicit DamageWatch(XConnection& x);
  json wait_action(const Request& request);

  // Before an input action: what was drawn until now does not count for settle().
  void arm();
  // After an input action (the agent's connection synchronised, so the server has the input):
  // waits until the application has drawn its answer and then nothing more for `quiet_ms`;
  // gives up on a first change after `first_change_ms` (nothing visible happened) and on
  // settling after `limit_ms`. Never a fixed sleep: each wait ends on a damage event or on
  // one of those bounds.
  Settled settle(int first_change_ms, int quiet_ms, int limit_ms);

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
