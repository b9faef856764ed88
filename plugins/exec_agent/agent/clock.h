// clock.h — the agent's one notion of time: milliseconds on CLOCK_MONOTONIC.
//
// Timeouts, kill graces and drain windows are all deadlines on this clock; the event loop turns
// the nearest one into poll()'s timeout. Wall-clock jumps (NTP, a container restored from a
// checkpoint) must not fire or stall them, hence the monotonic clock.
#pragma once

#include <cstdint>
#include <ctime>

namespace vc::exec_agent {

using Millis = std::int64_t;

inline Millis monotonic_ms() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return Millis{now.tv_sec} * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace vc::exec_agent
