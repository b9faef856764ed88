// desktop_tool_set.cpp — see desktop_tool_set.h.
#include "tools/desktop_tool_set.h"

#include <vector>

namespace vc::tools {

bool desktop_live(const computers::ComputerInfo& computer) {
  return computer.desktop_environment && computer.desktop_url.has_value();
}

void DesktopToolSet::observe(const computers::ComputerInfo& computer) {
  set_live(desktop_live(computer));
}

void DesktopToolSet::set_live(bool live) {
  if (live == live_) return;
  live_ = live;
  // A listener may unsubscribe (a session closing) while we go through them.
  std::vector<std::function<void()>> to_call;
  for (const auto& [id, listener] : *listeners_) to_call.push_back(listener);
  for (const auto& listener : to_call) listener();
}

ScreenSpace& DesktopToolSet::screen_space(uint64_t session_serial) {
  auto found = screen_spaces_.find(session_serial);
  if (found != screen_spaces_.end()) {
    space_use_.remove(session_serial);
    space_use_.push_back(session_serial);
    return found->second;
  }
  if (screen_spaces_.size() >= kMaxSessionSpaces) {
    screen_spaces_.erase(space_use_.front());
    space_use_.pop_front();
  }
  space_use_.push_back(session_serial);
  return screen_spaces_[session_serial];
}

bool DesktopToolSet::tool_visible(const std::string& name) const {
  return live_ || desktop_tools_.count(name) == 0;
}

mcp::CatalogChanges::Subscription DesktopToolSet::subscribe(std::function<void()> listener) {
  const uint64_t id = next_listener_++;
  listeners_->emplace(id, std::move(listener));
  std::weak_ptr<std::map<uint64_t, std::function<void()>>> weak = listeners_;
  return std::shared_ptr<void>(nullptr, [weak, id](void*) {
    if (auto listeners = weak.lock()) listeners->erase(id);
  });
}

}  // namespace vc::tools
