// desktop_tool_set.h — whether the desktop tools and screen resources exist right now.
//
// As the original (docs/compatibility.md, "Dynamic tool set"): at start they exist when
// DESKTOP_ENVIRONMENT is true; from then on they follow the computer's live desktop state
// (Xfce on and its view reachable), read each time the server learns it (the computer
// acquired, restarted, reset, its desktop or network switched). Every session is told of a
// change (notifications/tools/list_changed and notifications/resources/list_changed); the
// original told only the caller of the switch.
//
// [loop-thread].
#pragma once

#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "computers/computer_types.h"
#include "mcp/catalog_changes.h"
#include "tools/screen_space.h"

namespace vc::tools {

class DesktopToolSet final : public mcp::CatalogChanges {
 public:
  explicit DesktopToolSet(bool live_at_start) : live_(live_at_start) {}

  // The names of the tools that exist only with a live desktop.
  void add_desktop_tool(const std::string& name) { desktop_tools_.insert(name); }

  bool live() const { return live_; }
  // Follows the live state of `computer`; tells the subscribers when it changed.
  void observe(const computers::ComputerInfo& computer);
  void set_live(bool live);

  bool tool_visible(const std::string& name) const override;
  Subscription subscribe(std::function<void()> listener) override;

  // The coordinate space of the last screenshot a session took (screen_space.h), by
  // ToolCall::session_serial(). The spaces of the kMaxSessionSpaces sessions that used the
  // desktop last are kept; an older session starts again from the screen's own space.
  ScreenSpace& screen_space(uint64_t session_serial);
  static constexpr size_t kMaxSessionSpaces = 256;

 private:
  bool live_;
  std::set<std::string> desktop_tools_;
  uint64_t next_listener_ = 0;
  std::shared_ptr<std::map<uint64_t, std::function<void()>>> listeners_ =
      std::make_shared<std::map<uint64_t, std::function<void()>>>();
  // Session serial → its space, and the order of last use (most recent at the back).
  std::map<uint64_t, ScreenSpace> screen_spaces_;
  std::list<uint64_t> space_use_;
};

// Whether a computer's desktop can be driven now: Xfce on and its view published.
bool desktop_live(const computers::ComputerInfo& computer);

}  // namespace vc::tools
