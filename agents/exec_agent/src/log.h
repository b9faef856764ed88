// log.h — the agent's log: one line per event worth knowing, on stderr only.
//
// stdout carries nothing but frames; the plugin passes stderr lines to the server's log at
// debug level. Every line starts with "vc-exec-agent: " so it reads well among the server's.
#pragma once

namespace vc::exec_agent {

// printf-style; writes "vc-exec-agent: <message>\n" with a single write(2), cut at 1 KiB.
void log_line(const char* format, ...) __attribute__((format(printf, 1, 2)));

}  // namespace vc::exec_agent
