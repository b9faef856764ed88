// bounded_file.h — reading a small file whole (a kubeconfig, a PEM, a token) with a size bound,
// and failures phrased to follow the file's name in a sentence.
//
// The error's message is a predicate, so that callers build their own sentence around it:
// "<path> does not exist", "<path> cannot be read: Permission denied", "<path> is larger than
// 1 MiB", "<path> is not a regular file". Only regular files are read: a FIFO or a device
// named by mistake would block or never end.
//
// Blocking file I/O. Any thread.
#pragma once

#include <cstddef>
#include <string>

#include "api_endpoint.h"

namespace vc::kubernetes {

// Certificates, keys and tokens larger than this are refused (real ones are a few KiB).
inline constexpr std::size_t kMaxPemBytes = 1024 * 1024;
inline constexpr std::size_t kMaxTokenBytes = 1024 * 1024;

// The file's bytes, or a predicate saying why not (see above).
ConfigExpected<std::string> read_bounded_file(const std::string& path, std::size_t max_bytes);

// "1 MiB", "64 KiB", "300 bytes": a bound as messages state it.
std::string describe_byte_count(std::size_t bytes);

}  // namespace vc::kubernetes
