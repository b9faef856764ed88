// damage_wait.cpp — change and stable waits on damage events, driven by poll() on the X fd.
#include "damage_wait.h"

#include <X11/extensions/Xfixes.h>

#include <algorithm>

#include "vc_agent_common/clock.h"
#include "screenshot.h"

namespace vc::desktop_agent {

using agent_common::monotonic_ms;

DamageWatch::DamageWatch(XConnection& x) : x_(x) {
  x_.add_event_handler([this](XEvent& event) { on_event(event); });
}

void DamageWatch::on_event(XEvent& event) {
  if (damage_ != 0 && event_base_ != 0 && event.type == event_base_ + XDamageNotify) {
    notified_ = true;
  }
}

void DamageWatch::ensure() {
  Display* display = x_.display();
  if (generation_ == x_.generation() && damage_ != 0) return;
  damage_ = 0;
  int error_base = 0;
  if (!XDamageQueryExtension(display, &event_base_, &error_base)) {
    x_.check_alive();
    throw_failed("The X server has no DAMAGE extension, so screen changes cannot be watched.");
  }
  int major = 1, minor = 1;
  XDamageQueryVersion(display, &major, &minor);
  int fixes_event = 0, fixes_error = 0;
  if (!XFixesQueryExtension(display, &fixes_event, &fixes_error)) {
    throw_failed("The X server has no XFIXES extension, so screen changes cannot be watched.");
  }
  XFixesQueryVersion(display, &major, &minor);
  damage_ = XDamageCreate(display, x_.root(), XDamageReportNonEmpty);
  parts_ = XFixesCreateRegion(display, nullptr, 0);
  generation_ = x_.generation();
  x_.sync();
}

bool DamageWatch::collect(const Rect& region) {
  Display* display = x_.display();
  XDamageSubtract(display, damage_, None, parts_);
  int count = 0;
  XRectangle bounds{};
  XRectangle* rects = XFixesFetchRegionAndBounds(display, parts_, &count, &bounds);
  x_.check_alive();
  bool hit = false;
  for (int i = 0; i < count && rects != nullptr; ++i) {
    const XRectangle& r = rects[i];
    if (r.x < region.x + region.width && region.x < r.x + r.width &&
        r.y < region.y + region.height && region.y < r.y + r.height) {
      hit = true;
      break;
    }
  }
  if (rects != nullptr) XFree(rects);
  return hit;
}

void DamageWatch::arm() {
  ensure();
  x_.dispatch_pending();
  XDamageSubtract(x_.display(), damage_, None, None);
  x_.sync();
  x_.dispatch_pending();
  notified_ = false;
}

Settled DamageWatch::settle(int first_change_ms, int quiet_ms, int limit_ms) {
  ensure();
  const Rect screen{0, 0, x_.width(), x_.height()};
  const std::int64_t start = monotonic_ms();
  const std::int64_t deadline = start + limit_ms;
  Settled settled;
  std::int64_t last_change = start;
  for (;;) {
    const std::int64_t wake = settled.effect ? std::min(deadline, last_change + quiet_ms)
                                             : std::min(deadline, start + first_change_ms);
    x_.wait_until(wake, [this] { return notified_; });
    const std::int64_t now = monotonic_ms();
    settled.waited_ms = now - start;
    if (notified_) {
      notified_ = false;
      if (collect(screen)) {
        settled.effect = true;
        last_change = now;
      }
      continue;
    }
    if (!settled.effect && now - start >= first_change_ms) {
      settled.settled = true;
      return settled;
    }
    if (settled.effect && now - last_change >= quiet_ms) {
      settled.settled = true;
      return settled;
    }
    if (now >= deadline) return settled;
  }
}

json DamageWatch::wait_action(const Request& request) {
  const std::string until = request.choice("until", {"change", "stable"});
  const std::int64_t stable_ms = request.integer_or("stable_ms", 50, 60000, 500);
  const std::int64_t timeout_ms = request.integer_or("timeout_ms", 100, 120000, 10000);
  const Rect region = region_field(x_, request);
  ensure();

  const std::int64_t start = monotonic_ms();
  const std::int64_t deadline = start + timeout_ms;
  // What was drawn before the request does not count.
  arm();

  std::int64_t last_change = start;
  for (;;) {
    const std::int64_t wake = until == "stable" ? std::min(deadline, last_change + stable_ms)
                                                : deadline;
    x_.wait_until(wake, [this] { return notified_; });
    const std::int64_t now = monotonic_ms();
    if (notified_) {
      notified_ = false;
      if (collect(region)) {
        if (until == "change") return json{{"result", "changed"}, {"waited_ms", now - start}};
        last_change = now;
      }
      continue;
    }
    if (until == "stable" && now - last_change >= stable_ms) {
      return json{{"result", "stable"}, {"waited_ms", now - start}};
    }
    if (now >= deadline) return json{{"result", "timeout"}, {"waited_ms", now - start}};
  }
}

}  // namespace vc::desktop_agent
