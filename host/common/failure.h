// failure.h — the error value that travels from a plugin up to a tool result.
#pragma once

#include <cstdint>
#include <string>

#include <vc-backend-1/cpp/expected.h>

namespace vc {

// A failed operation: the ABI status (vc_status, < 0) and a sentence a user can act on.
struct Failure {
  int32_t status = -1;
  std::string message;
};

// Either a value or a Failure (the SDK's value-or-error template, which C++20 lacks).
template <class T>
using Expected = sdk::Expected<T, Failure>;

}  // namespace vc
