// versioned_struct.h — reading a struct a plugin hands over, whose struct_size may be older
// (smaller) than ours, or nonsense.
//
// The ABI's rule (vc_abi.h): a field exists only when struct_size covers it whole. Every
// struct is a header of 32-bit fields (`header_bytes`, a multiple of 8) followed by
// pointer-sized fields, so the bytes taken are struct_size capped at ours and rounded down to
// a whole field of the part it ends in; the rest of our copy stays zero (NULL). A struct_size
// that ends inside a field must not yield half a pointer.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace vc::plugins {

// How many leading bytes of a `ours`-byte struct a plugin's `struct_size` provides.
inline size_t whole_fields_size(uint32_t struct_size, size_t ours, size_t header_bytes = 8) {
  const size_t taken = std::min<size_t>(struct_size, ours);
  const size_t field = taken <= header_bytes ? sizeof(uint32_t) : sizeof(void*);
  return taken - taken % field;
}

// Copies the fields `raw` has into `*out`, which the caller zeroed.
template <class T>
void copy_versioned(T* out, const T* raw, size_t header_bytes = 8) {
  std::memcpy(out, raw, whole_fields_size(raw->struct_size, sizeof(T), header_bytes));
}

}  // namespace vc::plugins
