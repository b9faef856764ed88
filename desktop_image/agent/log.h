// log.h — the agent's own lines on stderr; stdout carries the protocol only.
#pragma once

#include <string>

namespace vca {

void log_line(const std::string& message);

}  // namespace vca
