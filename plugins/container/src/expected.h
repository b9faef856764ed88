// expected.h — a value or an OpFailure: what every asynchronous step of a flow passes on.
#pragma once

#include <utility>
#include <variant>

#include <vc-backend-1/cpp/op_result.h>

namespace vc::container {

// A failed step of a flow, and the op's failure when the flow ends with it.
using sdk::OpFailure;
using sdk::cancelled_failure;

template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}          // NOLINT(implicit)
  Expected(OpFailure failure) : state_(std::move(failure)) {}  // NOLINT(implicit)

  bool ok() const { return std::holds_alternative<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  const OpFailure& failure() const { return std::get<OpFailure>(state_); }

 private:
  std::variant<T, OpFailure> state_;
};

// Success without a value.
struct Done {};

}  // namespace vc::container
