// clock.h — the agents' notion of time: milliseconds and microseconds on CLOCK_MONOTONIC for
// deadlines and durations, wall-clock seconds for timestamps. Header-only; any thread.
//
// Timeouts, kill graces, drain windows and waits are deadlines on the monotonic clock: a
// wall-clock jump (NTP, a container restored from a checkpoint) must not fire or stall them.
#pragma once

#include <cstdint>
#include <ctime>

namespace vc::agent_common {

using Millis = std::int64_t;

inline Millis monotonic_ms() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return Millis{now.tv_sec} * 1000 + now.tv_nsec / 1'000'000;
}

inline std::int64_t monotonic_us() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return std::int64_t{now.tv_sec} * 1'000'000 + now.tv_nsec / 1'000;
}

inline double epoch_seconds() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

}  // namespace vc::agent_common
