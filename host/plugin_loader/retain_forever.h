// retain_forever.h — deliberately keeping objects alive until the process exits.
//
// Two things must never be freed while plugin code may still run: a loaded module (its code,
// its descriptor strings) and whatever a plugin thread that outlived its backend can still
// reach (the vc_op records, the host-services table). Rather than risk a use-after-free, the
// host parks them here. The list stays reachable from a static, so leak checkers do not flag it.
#pragma once

#include <memory>

namespace vc::plugins {

// [any-thread] Keeps `object` alive for the rest of the process.
void retain_forever(std::shared_ptr<const void> object);

}  // namespace vc::plugins
