// file_read.h — reads a small file, above all one under /proc of another process, without
// exceptions.
//
// A process can exit between opening its /proc/<pid>/stat and reading it; read() then fails
// with ESRCH, and std::ifstream's underflow turns that into an exception ("basic_filebuf::
// underflow error reading the file: No such process") in the middle of an action. The agent's
// /proc reads and whole-file reads go through this instead: a vanished process reads as an empty file.
// Thread rule: any thread.
#pragma once

#include <cstddef>
#include <string>

namespace vc::desktop_agent {

// The file's bytes, at most `limit` of them; empty when it cannot be opened or read (the
// process is gone, or it belongs to another user). A read error part-way gives what was read.
std::string read_file_or_empty(const std::string& path, std::size_t limit = 1 << 20);

}  // namespace vc::desktop_agent
