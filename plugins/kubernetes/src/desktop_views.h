// desktop_views.h — how a person reaches the screens of a backend's desktop computers: one
// local listener per computer (desktop_view_proxy.h), relaying to its pod's noVNC bridge, and
// the URL that opens it in a browser.
//
// A computer's listener is started the first time its URL is asked for (the computer's info
// while its pod runs with Xfce on) and kept until the computer is removed or the backend ends: its port,
// and so its URL, stays the same across restarts of the computer, and a browser that is
// watching reconnects by itself (noVNC's reconnect=1) once the new pod's bridge is up. The
// pod's name is the computer's, so the listener need not be pointed anywhere new. The secret
// travels in the URL's fragment and is checked by the bridge in the pod (a reset makes a new
// pod with a new secret, hence a new URL).
//
// Thread rule: url_for() and forget() on lane threads (forget() waits for the relayed
// connections to end); stop() once, on the owner's thread, before the cluster's transport
// stops.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <vc-backend-1/cpp/host_log.h>

#include "cluster_calls.h"
#include "desktop_view_proxy.h"
#include "pod_status.h"

namespace vc::kubernetes {

class DesktopViews {
 public:
  DesktopViews(ClusterCalls& calls, sdk::HostLog log);
  ~DesktopViews();

  DesktopViews(const DesktopViews&) = delete;
  DesktopViews& operator=(const DesktopViews&) = delete;

  // [lane] The URL that shows `pod`'s desktop, starting its listener when it has none; nullopt
  // when there is nothing to show (not a desktop computer, not running, no secret) or the
  // listener cannot start (logged once per attempt).
  std::optional<std::string> url_for(const PodView& pod);

  // [lane] The computer is gone: its listener closes and its browsers are disconnected.
  void forget(const std::string& computer_id);

  // [owner] Closes every listener.
  void stop();

 private:
  ClusterCalls& calls_;
  const sdk::HostLog log_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<DesktopViewProxy>> views_;  // by computer id
};

// "http://127.0.0.1:<port>/vnc.html#autoconnect=1&resize=scale&reconnect=1&path=websockify%3Ftoken%3D<secret>":
// the secret in the fragment, which browsers never send to a server.
std::string desktop_view_url(std::uint16_t port, const std::string& token);

}  // namespace vc::kubernetes
