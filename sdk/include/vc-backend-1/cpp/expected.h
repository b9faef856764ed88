// expected.h — a value or an error: what a call that can fail returns or passes to its callback.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). Expected<T, E>
// holds either the T a call produced or the E that says why it failed; Expected<void, E> is
// success without a value, or the E. C++20 has no std::expected (it arrives in C++23) and this
// layer is C++20, so this is the small subset that code here uses: construct from either side,
// ok(), value(), error(). Each user names its error once with an alias, e.g.
// `template <class T> using Expected = vc::sdk::Expected<T, OpFailure>;`.
//
// Thread rule: a plain value type. One object is not safe to change from two threads at once;
// copies are independent.
#pragma once

#include <optional>
#include <utility>
#include <variant>

namespace vc::sdk {

// Either a T or an E. Construct from either; value() and error() require the matching side
// (std::get throws std::bad_variant_access otherwise).
template <class T, class E>
class Expected {
 public:
  // Parameter names differ from the members': T may be a function pointer, and -Wshadow
  // reports a parameter of that type named like a member function.
  Expected(T result) : state_(std::move(result)) {}    // NOLINT(implicit)
  Expected(E failure) : state_(std::move(failure)) {}  // NOLINT(implicit)

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const E& error() const& { return std::get<E>(state_); }

 private:
  std::variant<T, E> state_;
};

// Success without a value (the default), or an E. error() requires !ok().
template <class E>
class Expected<void, E> {
 public:
  Expected() = default;
  Expected(E failure) : error_(std::move(failure)) {}  // NOLINT(implicit)

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const E& error() const& { return *error_; }

 private:
  std::optional<E> error_;
};

}  // namespace vc::sdk
