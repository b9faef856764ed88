// read_buffer.h — the one 64 KiB buffer every read goes through (the channel, every pipe).
//
// The agent is single-threaded and consumes each read before the next one, so a single buffer
// serves all: no per-command allocation of big buffers, nothing to free. 64 KiB is also the
// largest output frame, so one read makes at most one frame.
#pragma once

#include <span>

#include "vc_exec_agent/frames.h"

namespace vc::exec_agent {

inline std::span<char, kChunkSize> shared_read_buffer() {
  static char buffer[kChunkSize];
  return std::span<char, kChunkSize>(buffer);
}

}  // namespace vc::exec_agent
