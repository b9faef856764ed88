// mount_request.h — the host folders a computer_create call may ask for (--lifecycle-tools):
// only folders inside the operator's --mount-root, so the model cannot mount the host's / or
// ~/.ssh (docs/mounts.md, "Mounts asked for by the model").
//
// Reads the host's file system (realpath); any thread.
#pragma once

#include <string>

#include "common/failure.h"
#include "common/json.h"

namespace vc::tools {

// Checks computer_create's "mounts" argument against `mount_root` (already a real, absolute
// folder; empty when the server has no --mount-root) and yields the create request's "mounts":
// [{"host_path" (resolved), "computer_path", "read_only"}]. Refuses, with a sentence naming the
// entry, anything that is not such a list, a host path that does not exist, and one that is
// not the root or inside it once symbolic links are resolved. The computer path is the
// backend's to check.
Expected<Json> mounts_under_root(const Json& mounts, const std::string& mount_root);

}  // namespace vc::tools
