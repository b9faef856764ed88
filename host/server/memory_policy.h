// memory_policy.h — how the server's process uses memory.
//
// The server holds about ten megabytes for hours, while now and then a buffer of a megabyte
// or more passes through it (a file read or written, a command's output, the exec agent copied
// into a computer). glibc serves such buffers from mmap only until one is freed; then it raises
// its threshold to that size and serves the next ones from the heap, where memory freed at the
// top of a thread's arena stays resident. A fixed threshold keeps every large buffer in mmap,
// returned to the system as soon as it is freed.
#pragma once

namespace vc::server {

// Call first thing in main(), before any thread starts.
void set_memory_policy();

}  // namespace vc::server
