// desktop_views.cpp — one DesktopViewProxy per desktop computer, made on first need.
#include "desktop_views.h"

#include <utility>

#include "computer_objects.h"

namespace vc::kubernetes {

DesktopViews::DesktopViews(ClusterCalls& calls, sdk::HostLog log)
    : calls_(calls), log_(std::move(log)) {}

DesktopViews::~DesktopViews() { stop(); }

std::optional<std::string> DesktopViews::url_for(const PodView& pod) {
  if (!pod.desktop_capable || pod.state != "running" || pod.desktop_token.empty() ||
      pod.computer_id.empty()) {
    return std::nullopt;
  }
  std::lock_guard lock(mutex_);
  auto& view = views_[pod.computer_id];
  if (!view) {
    DesktopViewProxyOptions options;
    options.subject = "the desktop of computer " + pod.computer_id;
    auto started = calls_.open_desktop_view(pod.name, kDesktopBridgePort, options, log_);
    if (!started) {
      views_.erase(pod.computer_id);
      log_.warn(started.error().message);
      return std::nullopt;
    }
    view = std::move(started).value();
  }
  return desktop_view_url(view->port(), pod.desktop_token);
}

void DesktopViews::forget(const std::string& computer_id) {
  std::unique_ptr<DesktopViewProxy> view;
  {
    std::lock_guard lock(mutex_);
    const auto found = views_.find(computer_id);
    if (found == views_.end()) return;
    view = std::move(found->second);
    views_.erase(found);
  }
  view->stop();  // outside the lock: it waits for the relayed streams to end
}

void DesktopViews::stop() {
  std::map<std::string, std::unique_ptr<DesktopViewProxy>> views;
  {
    std::lock_guard lock(mutex_);
    views.swap(views_);
  }
  for (auto& [id, view] : views) view->stop();
}

std::string desktop_view_url(std::uint16_t port, const std::string& token) {
  return "http://127.0.0.1:" + std::to_string(port) +
         "/vnc.html#autoconnect=1&resize=scale&reconnect=1&path=websockify%3Ftoken%3D" + token;
}

}  // namespace vc::kubernetes
