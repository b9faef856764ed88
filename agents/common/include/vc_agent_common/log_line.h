// log_line.h — an agent's log: one line per event worth knowing, on stderr only. Any thread or
// process (the desktop agent's worker process logs too).
//
// stdout carries nothing but the protocol; the plugin passes stderr lines to the server's log
// at debug level. Every line starts with the program's name ("vc-exec-agent: ",
// "vc-desktop-agent: ") so it reads well among the server's.
#pragma once

#include <string_view>

namespace vc::agent_common {

// The program's name that starts each line; each agent defines it once.
extern const std::string_view kProgramName;

// Writes "<kProgramName>: <message>\n" in one write(2) where the kernel takes it whole, so that
// lines of concurrent writers to the same stderr do not interleave; a line that cannot be
// written is dropped: there is nowhere else to report it.
void log_line(std::string_view message);

}  // namespace vc::agent_common
