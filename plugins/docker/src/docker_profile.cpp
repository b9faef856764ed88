// docker_profile.cpp — how Docker differs from the engine-neutral backend logic.
//
// It fills every field of container::EngineProfile, as podman_profile.cpp does for Podman: the
// same lines with the other engine's values, on purpose, so that each engine's facts read
// in one place.
#include "docker_profile.h"

namespace vc::docker {

const container::EngineProfile& docker_profile() {
  static const container::EngineProfile profile = [] {
    container::EngineProfile p;
    p.engine_name = "docker";
    p.engine_display_name = "Docker engine";
    p.product_display_name = "Docker";
    p.daemon_hint = "Is dockerd running?";
    p.is_podman = false;
    p.wrong_engine_hint =
        "Use --backend podman for Podman, or point --docker-host at dockerd's socket.";
    p.online_network = "bridge";
    // Docker keeps a disconnected container parked on its `none` network, which is what the
    // original server did and what `docker inspect` users expect to see.
    p.offline_network = "none";
    // dockerd reports "OCI runtime exec failed" on stdout with exit code 126.
    p.exec_start_failure_exit_codes = {126};
    return p;
  }();
  return profile;
}

}  // namespace vc::docker
