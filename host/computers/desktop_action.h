// desktop_action.h — one action on the desktop of the server's computer: a screenshot, a
// click, a key chord, a window switch (the actions of docs/desktop-agent.md).
//
// Acquires the computer if needed (as a command does), then runs the backend's desktop_action
// op with {"computer_id", ...action}. The backend's message reaches the caller unchanged when
// it fails ("Unknown key 'ctlr' in 'ctlr+s'."). A backend without the desktop-control
// extension fails with VC_E_UNSUPPORTED.
//
// [loop-thread]; `done` runs exactly once, on a later loop turn. Cancelling stops waiting (an
// input event already sent is not undone); `done` then reports VC_E_CANCELLED.
#pragma once

#include <functional>

#include "common/cancellable.h"
#include "common/failure.h"
#include "common/json.h"
#include "computers/computer_registry.h"

namespace vc::computers {

CancelHandle run_desktop_action(ComputerRegistry& registry, Json action,
                                std::function<void(Expected<Json>)> done);

}  // namespace vc::computers
