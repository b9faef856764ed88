// accessibility_client.h — the agent's side of accessibility: a worker process it starts,
// feeds and replaces.
//
// The worker holds the connection to one desktop session's accessibility bus: it is started on
// the first request and replaced when the bus it serves is gone (Xfce switched off and on,
// Xvfb restarted). It also keeps a hung application's D-Bus timeouts out of the agent's own
// event loop, which goes on serving X events (clipboard requests) while a snapshot runs.
#pragma once

#include <sys/types.h>

#include <string>

#include "protocol.h"
#include "x_connection.h"

namespace vc::desktop_agent {

class AccessibilityClient {
 public:
  explicit AccessibilityClient(XConnection& x);
  ~AccessibilityClient();
  json snapshot_action(const Request& request);
  json element_bounds_action(const Request& request);
  // element_action: focus, press or set the text of an element (accessibility_tree.h).
  json element_action(const Request& request);

 private:
  json ask(json request, int timeout_ms, const char* what);
  std::string bus_property();
  void ensure_worker();
  void stop_worker();

  XConnection& x_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  int from_worker_ = -1;
  std::string worker_bus_;
  std::uint64_t worker_generation_ = 0;
  std::string buffer_;
};

}  // namespace vc::desktop_agent
