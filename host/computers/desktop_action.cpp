// desktop_action.cpp — acquire, then one backend desktop_action op.
#include "computers/desktop_action.h"

#include <utility>

#include "backend_proxy/backend.h"
#include "computers/acquired_op.h"

namespace vc::computers {

CancelHandle run_desktop_action(ComputerRegistry& registry, Json action,
                                std::function<void(Expected<Json>)> done) {
  return run_on_acquired_computer(registry, backend_proxy::Operation::desktop_action,
                                  std::move(action), "desktop action", std::move(done));
}

}  // namespace vc::computers
