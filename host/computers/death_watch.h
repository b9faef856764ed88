// death_watch.h — noticing that the computer stopped without being asked to.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "common/cancellable.h"
#include "backend_proxy/backend.h"

namespace vc::computers {

struct DeathWatchCallbacks {
  // The backend reports that the computer stopped unexpectedly.
  std::function<void(const std::string& reason)> on_death;
  // The watch failed with VC_E_UNAVAILABLE: the engine went away (or stopped the computer
  // during its own shutdown). Not a death; `reason` is the backend's message.
  std::function<void(const std::string& reason)> on_engine_lost;
};

// [loop-thread] Starts the backend's wait_for_death for `computer_id`; at most one callback
// runs, at most once. A cancelled watch, a backend without wait_for_death (logged at debug)
// and any other failed watch (logged as a warning) are not deaths: the watch just ends.
CancelHandle watch_for_death(backend_proxy::Backend& backend, const std::string& computer_id,
                             DeathWatchCallbacks callbacks);

// "Sandbox <first 12 characters of the sandbox id> died during command execution" — the
// original's wording, which clients and tests match on "died".
std::string died_message(std::string_view sandbox_id);

}  // namespace vc::computers
