// random_bytes.cpp — see random_bytes.h.
#include "common/random_bytes.h"

#include <uv.h>

#include <stdexcept>
#include <string>

namespace vc {

void fill_random(void* out, std::size_t size, const char* purpose) {
  if (uv_random(nullptr, nullptr, out, size, 0, nullptr) != 0) {
    throw std::runtime_error(std::string("no random bytes for ") + purpose);
  }
}

}  // namespace vc
