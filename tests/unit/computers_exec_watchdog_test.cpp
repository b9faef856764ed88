// computers_exec_watchdog_test.cpp — when the host stops waiting for an exec: once its timeout
// and the grace have passed, counted from when the backend can have started it (every exec
// called before it on the same computer of the same backend done).
#include "computers/exec_watchdog.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include <gtest/gtest.h>
#include <uv.h>

namespace vc::computers {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Long enough that a loaded machine's scheduling noise stays well below it.
constexpr auto kAllowance = 300ms;
// libuv counts a timer from the time it cached when the loop turn began, a little earlier than
// the moment the clock started.
constexpr int64_t kLoopClockSlackMs = 10;

class ExecWatchdogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uv_loop_init(&loop_);
    // In the server the pending op keeps the loop alive; the watchdog's own timer does not.
    uv_timer_init(&loop_, &pending_op_);
    uv_timer_start(&pending_op_, [](uv_timer_t*) {}, 3'600'000, 0);
    started_ = Clock::now();
  }
  void TearDown() override {
    uv_close(reinterpret_cast<uv_handle_t*>(&pending_op_), nullptr);
    uv_run(&loop_, UV_RUN_DEFAULT);  // close callbacks of the timers
    EXPECT_EQ(uv_loop_close(&loop_), 0);
  }

  // A watchdog on `computer_id` of `backend` whose expiry is recorded in `expired_at`
  // (milliseconds since the test started).
  std::unique_ptr<ExecWatchdog> watch(const void* backend, const std::string& computer_id,
                                      std::optional<int64_t>& expired_at,
                                      std::chrono::milliseconds timeout = kAllowance,
                                      std::chrono::milliseconds grace = 0ms) {
    return ExecWatchdog::start(&loop_, backend, computer_id, timeout, grace, [this, &expired_at] {
      expired_at = elapsed_ms();
    });
  }

  int64_t elapsed_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - started_).count();
  }

  // Turned by hand, so a test can act between two turns.
  void run_for(std::chrono::milliseconds duration, const std::function<bool()>& until = {}) {
    const auto end = Clock::now() + duration;
    while (Clock::now() < end && !(until && until())) {
      uv_run(&loop_, UV_RUN_NOWAIT);
      std::this_thread::sleep_for(1ms);
    }
  }

  uv_loop_t loop_{};
  uv_timer_t pending_op_{};
  Clock::time_point started_;
  const int backend_ = 0;
  const int other_backend_ = 0;
};

TEST_F(ExecWatchdogTest, ExpiresOnceTheTimeoutAndTheGraceHavePassed) {
  std::optional<int64_t> expired_at;
  auto watchdog = watch(&backend_, "box", expired_at, kAllowance, kAllowance);
  run_for(10 * kAllowance, [&] { return expired_at.has_value(); });
  ASSERT_TRUE(expired_at.has_value());
  EXPECT_GE(*expired_at, (2 * kAllowance).count() - kLoopClockSlackMs);
}

TEST_F(ExecWatchdogTest, NeverExpiresOnceDestroyed) {
  std::optional<int64_t> expired_at;
  auto watchdog = watch(&backend_, "box", expired_at, 10ms);
  watchdog.reset();
  run_for(100ms);
  EXPECT_FALSE(expired_at.has_value());
}

TEST_F(ExecWatchdogTest, AQueuedExecsClockStartsWhenTheOneBeforeItExpired) {
  std::optional<int64_t> first_at;
  std::optional<int64_t> second_at;
  auto first = watch(&backend_, "box", first_at);
  auto second = watch(&backend_, "box", second_at);
  run_for(10 * kAllowance, [&] { return second_at.has_value(); });
  ASSERT_TRUE(first_at.has_value() && second_at.has_value());
  EXPECT_GE(*first_at, kAllowance.count() - kLoopClockSlackMs);
  EXPECT_GE(*second_at, *first_at + kAllowance.count() - kLoopClockSlackMs);
}

TEST_F(ExecWatchdogTest, AQueuedExecsClockStartsWhenTheOneBeforeItCompleted) {
  std::optional<int64_t> first_at;
  std::optional<int64_t> second_at;
  auto first = watch(&backend_, "box", first_at);
  auto second = watch(&backend_, "box", second_at);
  run_for(kAllowance / 2);
  const int64_t completed_at = elapsed_ms();
  first.reset();
  run_for(10 * kAllowance, [&] { return second_at.has_value(); });
  EXPECT_FALSE(first_at.has_value());
  ASSERT_TRUE(second_at.has_value());
  EXPECT_GE(*second_at, completed_at + kAllowance.count() - kLoopClockSlackMs);
}

TEST_F(ExecWatchdogTest, OtherComputersAndOtherBackendsDoNotWait) {
  std::optional<int64_t> first_at;
  std::optional<int64_t> other_computer_at;
  std::optional<int64_t> other_backend_at;
  auto first = watch(&backend_, "box", first_at);
  auto other_computer = watch(&backend_, "other-box", other_computer_at);
  auto other_backend = watch(&other_backend_, "box", other_backend_at);
  run_for(10 * kAllowance, [&] {
    return first_at.has_value() && other_computer_at.has_value() && other_backend_at.has_value();
  });
  ASSERT_TRUE(first_at && other_computer_at && other_backend_at);
  // Queued behind the first, either would have waited at least twice the allowance.
  EXPECT_LT(*other_computer_at, (2 * kAllowance).count());
  EXPECT_LT(*other_backend_at, (2 * kAllowance).count());
}

TEST_F(ExecWatchdogTest, SaturatesAnEnormousTimeout) {
  std::optional<int64_t> expired_at;
  auto watchdog = watch(&backend_, "box", expired_at, std::chrono::milliseconds::max(), 10s);
  run_for(50ms);
  EXPECT_FALSE(expired_at.has_value());
}

}  // namespace
}  // namespace vc::computers
