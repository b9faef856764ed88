// log.h — the agent's log: one line per event worth knowing, on stderr only.
//
// stdout carries nothing but frames; the plugin passes stderr lines to the server's log at
// debug level. Every line starts with "vc-exec-agent: " so it reads well among the server's.
// The process supervisor points its stderr at a file of its own instead (supervisor.log) and
// bounds it with bound_log_file(). Single-threaded.
#pragma once

#include <cstddef>

namespace vc::exec_agent {

// printf-style; writes "vc-exec-agent: <message>\n" with a single write(2), cut at 1 KiB.
void log_line(const char* format, ...) __attribute__((format(printf, 1, 2)));

// From now on stderr is a regular file that is emptied (truncated to nothing) before a line
// that would take it past `max_bytes`: a daemon that runs for months keeps a log of bounded
// size, its latest lines always there.
void bound_log_file(std::size_t max_bytes);

}  // namespace vc::exec_agent
