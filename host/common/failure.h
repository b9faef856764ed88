// failure.h — the error value that travels from a plugin up to a tool result.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>

namespace vc {

// A failed operation: the ABI status (vc_status, < 0) and a sentence a user can act on.
struct Failure {
  int32_t status = -1;
  std::string message;
};

// Either a value or a Failure. Small on purpose: C++20 has no std::expected.
template <class T>
class Expected {
 public:
  Expected(T result) : state_(std::move(result)) {}         // NOLINT(implicit)
  Expected(Failure failure) : state_(std::move(failure)) {}  // NOLINT(implicit)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const Failure& failure() const { return std::get<Failure>(state_); }

 private:
  std::variant<T, Failure> state_;
};

}  // namespace vc
