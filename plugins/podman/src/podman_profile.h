// podman_profile.h — Podman's profile for the container backend.
#pragma once

#include "engine_profile.h"

namespace vc::podman {

// The profile of Podman's Docker-compatible API (podman system service, API 1.41). Any thread.
const container::EngineProfile& podman_profile();

}  // namespace vc::podman
