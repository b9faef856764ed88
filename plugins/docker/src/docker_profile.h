// docker_profile.h — the Docker engine's profile for the container backend.
#pragma once

#include "engine_profile.h"

namespace vc::docker {

// The profile of dockerd (Docker Engine API >= 1.41). Any thread.
const container::EngineProfile& docker_profile();

}  // namespace vc::docker
