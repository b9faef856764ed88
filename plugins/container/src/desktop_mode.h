// desktop_mode.h — the Xfce session of a desktop computer: reading it and switching it in
// place, through the image's `vc-desktop` command (desktop_image/vc-desktop) run as a helper
// exec. The container, its id and its files are untouched by a switch; the wanted mode is the
// marker file in the computer's writable layer, so a restart brings back the mode it had.
//
// EngineLoop thread only.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "container_calls.h"

namespace vc::container {

// How long a switch may take before it is reported as failed (the original's 15 s).
inline constexpr std::chrono::seconds kDesktopSwitchTimeout{15};

struct DesktopState {
  bool wanted = false;   // the marker
  bool enabled = false;  // Xfce is up (panel and desktop mapped)
  bool live = false;     // screen, VNC and bridge up, and Xfce as wanted
};

// Waits up to `wait` for the desktop to be as wanted, then reports it (a zero wait just looks).
// Not being live in time is not a failure here; an exec that cannot run is.
void read_desktop_state(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                        const std::string& container, std::chrono::seconds wait,
                        Callback<DesktopState> done);

// Records the wanted mode and waits until it is live. Fails with the original's sentence
// ("Xfce did not start within 15 seconds. The computer itself is still running and was not
// replaced.") when it is not.
void switch_desktop(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                    const std::string& container, bool enabled, Callback<DesktopState> done);

}  // namespace vc::container
