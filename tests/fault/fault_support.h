// fault_support.h — small checks the fault cases share: waiting for a process to appear in a
// computer, counting a host's open descriptors, reading a tool error.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "container_engine.h"
#include "json.h"

namespace vc::fault {

// Waits (up to `timeout`) until a process called `name` runs in `container`.
bool wait_for_process(const test::ContainerEngine& engine, const std::string& container,
                      const std::string& name,
                      std::chrono::milliseconds timeout = std::chrono::seconds(30));

// How many descriptors `pid` has open, once the count has stopped changing for a moment (a
// closed connection takes a loop turn or two to be released); -1 when it cannot be read.
int settled_descriptor_count(pid_t pid);

// The "error" of a tool result's payload (empty when there is none).
std::string tool_error(const test::Json& tool_result);

}  // namespace vc::fault
