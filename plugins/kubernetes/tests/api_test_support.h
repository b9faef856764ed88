// api_test_support.h — what the transport's tests share: a credential source that counts its
// calls, and waiting for a callback that runs on the ApiLoop's thread.
//
// Thread rule: CountingCredentials may be called from any thread. Outcome<T> is filled on the
// loop thread and waited for on the test's thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "api_endpoint.h"
#include "api_error.h"

namespace vc::kubernetes::testing {

// Fixed credentials: a bearer token (maybe a wrong one), counting current() and invalidate().
class CountingCredentials : public CredentialSource {
 public:
  explicit CountingCredentials(std::string token = "") {
    credentials_.bearer_token = std::move(token);
  }

  ConfigExpected<Credentials> current() override {
    ++current_calls;
    if (fail_with) return ConfigError{*fail_with};
    std::lock_guard lock(mutex_);
    return credentials_;
  }
  void invalidate() override { ++invalidate_calls; }
  std::string describe() const override { return "the test's fixed token"; }

  void set_token(std::string token) {
    std::lock_guard lock(mutex_);
    credentials_.bearer_token = std::move(token);
  }

  std::atomic<int> current_calls{0};
  std::atomic<int> invalidate_calls{0};
  std::optional<std::string> fail_with;  // set before use: current() then fails with this

 private:
  std::mutex mutex_;
  Credentials credentials_;
};

// The one result of an asynchronous call, waited for with a bound; counts deliveries so that a
// second one (a broken "exactly once") is seen.
template <class T>
class Outcome {
 public:
  void set(T value) {
    std::lock_guard lock(mutex_);
    ++deliveries_;
    if (!value_) value_.emplace(std::move(value));
    arrived_.notify_all();
  }
  // The value, or nullopt when none came within `limit`.
  std::optional<T> wait(std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    std::unique_lock lock(mutex_);
    arrived_.wait_for(lock, limit, [this] { return value_.has_value(); });
    return value_;
  }
  int deliveries() const {
    std::lock_guard lock(mutex_);
    return deliveries_;
  }

 private:
  mutable std::mutex mutex_;
  std::condition_variable arrived_;
  std::optional<T> value_;
  int deliveries_ = 0;
};

}  // namespace vc::kubernetes::testing
