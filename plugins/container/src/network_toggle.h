// network_toggle.h — turning a headless computer's network access on and off.
//
// Network access is the set of networks the container is attached to, changed with the
// engine's connect/disconnect calls on the same container (its filesystem and processes are
// untouched; docs/compatibility.md, "Network and desktop switches"):
//   on  = attached to the profile's online network (Docker: bridge);
//   off = detached from every network, then parked on the profile's offline network when the
//         engine has one (Docker: none; Podman has no such network object, so: nothing).
// A failed step rolls the completed steps back in reverse order, so the computer keeps its
// previous state. The state lives in the container's own network attachments, which the
// engine keeps across container and host restarts; the plugin derives it from inspect and
// stores nothing itself.
#pragma once

#include <string>
#include <vector>

#include "container_calls.h"

namespace vc::container {

struct NetworkStep {
  enum class Action { kConnect, kDisconnect };
  Action action = Action::kConnect;
  std::string network;

  friend bool operator==(const NetworkStep&, const NetworkStep&) = default;
};

// The steps that take a container attached to `attached` to the state `enable`; empty when it
// is there already. Pure.
std::vector<NetworkStep> plan_network_change(const std::vector<std::string>& attached,
                                             bool enable, const EngineProfile& profile);

// Runs the plan on container `name`. Not cancellable: a half-applied change is rolled back, not
// abandoned. On failure the message says what failed and whether the old state was restored.
// EngineLoop thread only.
void apply_network_plan(BackendContext& ctx, const std::string& name,
                        std::vector<NetworkStep> steps, bool enable, Callback<Done> done);

}  // namespace vc::container
