// memory_policy.cpp — a fixed mmap threshold (see memory_policy.h).
#include "server/memory_policy.h"

#include <malloc.h>

namespace vc::server {
namespace {

// glibc's own starting value; setting it explicitly is what stops it from moving.
constexpr int kMmapThresholdBytes = 128 * 1024;

}  // namespace

void set_memory_policy() { mallopt(M_MMAP_THRESHOLD, kMmapThresholdBytes); }

}  // namespace vc::server
