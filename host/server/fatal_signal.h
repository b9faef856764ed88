// fatal_signal.h — the one line the process writes when a crash ends it.
//
// A backend plugin runs inside the host's process, so a SIGSEGV, SIGBUS, SIGILL, SIGFPE or
// SIGABRT in its code ends the server exactly like one in the server's own code. Whoever reads
// the log then needs to know which it was:
//
//   mcp-virtual-computer: fatal signal SIGSEGV in the backend plugin 'docker'
//   (/usr/lib/mcp-virtual-computer/backends/vc-backend-docker.so); the server stops. The
//   computer and its files are not affected.
//
// (one line), or "... fatal signal SIGSEGV in the server itself; ...". The faulting instruction
// decides (x86_64 and aarch64; elsewhere, and for a signal that was raised or sent rather than
// caused by an instruction, such as abort()'s SIGABRT, the line names no culprit). Then the
// handler that was there before is put back — a sanitizer's, which adds its own report, or the
// default — and the signal takes its course: the process still ends by it.
#pragma once

namespace vc::server {

// Installs the handler once; later calls do nothing. Call it first thing in main(): after the
// sanitizer runtimes installed theirs (before main), before any plugin is loaded.
void install_fatal_signal_report();

}  // namespace vc::server
