// test_names.cpp — see test_names.h.
#include "test_names.h"

#include <unistd.h>

#include <atomic>

namespace vc::test {

std::string unique_name(const std::string& prefix) {
  static std::atomic<int> counter{0};
  return prefix + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

}  // namespace vc::test
