// podman_profile.cpp — how Podman's compat API differs from the engine-neutral backend logic.
//
// The rest of Podman's quirks are handled where they arise, in the shared backend, because
// being strict about them is right for Docker too:
// - exec inspect reports ExitCode 0 while an exec still runs: only Running == false counts
//   (helper_exec.cpp); detached execs never report completion, so every exec is attached.
// - `wait` with `removed` or `not-running` reports wrong codes: the death watch uses
//   `next-exit` (container_exit_watch.cpp).
// - a forced DELETE first waits out the stop timeout: computers run an init as PID 1 (Init,
//   catatonit on Podman), which ends on SIGTERM at once (container_spec.cpp).
//
// It fills every field of container::EngineProfile, as docker_profile.cpp does for Docker: the
// same lines with the other engine's values, on purpose, so that each engine's facts read
// in one place.
#include "podman_profile.h"

namespace vc::podman {

const container::EngineProfile& podman_profile() {
  static const container::EngineProfile profile = [] {
    container::EngineProfile p;
    p.engine_name = "podman";
    p.engine_display_name = "Podman service";
    p.product_display_name = "Podman";
    p.daemon_hint = "Is `podman system service` running on that socket?";
    p.is_podman = true;
    p.wrong_engine_hint =
        "Use --backend docker for Docker, or point --podman-socket at Podman's API socket.";
    // The compat API lists Podman's default network under Docker's name.
    p.online_network = "bridge";
    // Quirk: Podman has no `none` network object to park a container on, and a container
    // created with NetworkMode "none" can never be connected to a network again. Computers are
    // therefore always created on the bridge, and "no network access" means "attached to no
    // network at all" (only the loopback interface is left).
    p.offline_network = std::nullopt;
    // Quirk: Podman reports an exec that could not start (missing binary or working directory)
    // on stderr with exit code 127; dockerd uses 126.
    p.exec_start_failure_exit_codes = {127};
    return p;
  }();
  return profile;
}

}  // namespace vc::podman
