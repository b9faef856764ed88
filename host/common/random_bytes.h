// random_bytes.h — bytes from the operating system's cryptographic random source.
//
// For what must not be guessed: the request-state key, task ids. libuv's uv_random reads
// getrandom(2) (or /dev/urandom), never a seeded generator.
//
// Thread rule: any thread.
#pragma once

#include <cstddef>

namespace vc {

// Fills `size` bytes at `out`; throws std::runtime_error naming `purpose` when the system has
// none to give.
void fill_random(void* out, std::size_t size, const char* purpose);

}  // namespace vc
