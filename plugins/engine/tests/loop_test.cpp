// loop_test.cpp — EngineLoop: posting, ordering, timers, stopping.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "fake_engine.h"
#include "vc_engine/engine_client.h"
#include "vc_engine/engine_loop.h"

namespace vc::engine {
namespace {

using namespace std::chrono_literals;
using testing::Outcome;

TEST(EngineLoop, PostRunsOnTheLoopThreadInOrder) {
  EngineLoop loop;
  EXPECT_FALSE(loop.is_loop_thread());
  EXPECT_TRUE(loop.running());
  std::vector<int> order;  // touched only on the loop thread
  Outcome<std::vector<int>> done;
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(loop.post([&, i] {
      EXPECT_TRUE(loop.is_loop_thread());
      order.push_back(i);
    }));
  }
  loop.post([&, cb = done.callback()] { cb(order); });
  auto* result = done.get();
  ASSERT_NE(result, nullptr);
  ASSERT_EQ(result->size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ((*result)[static_cast<std::size_t>(i)], i);
}

TEST(EngineLoop, PostFromManyThreads) {
  EngineLoop loop;
  std::atomic<int> count{0};
  std::vector<std::thread> posters;
  for (int t = 0; t < 4; ++t) {
    posters.emplace_back([&] {
      for (int i = 0; i < 500; ++i) loop.post([&] { ++count; });
    });
  }
  for (auto& poster : posters) poster.join();
  Outcome<int> done;
  loop.post([&, cb = done.callback()] { cb(count.load()); });
  ASSERT_NE(done.get(), nullptr);
  EXPECT_EQ(*done.get(), 2000);
}

TEST(EngineLoop, TaskPostedFromTheLoopRunsLater) {
  EngineLoop loop;
  Outcome<std::string> done;
  loop.post([&, cb = done.callback()]() mutable {
    auto shared = std::make_shared<std::string>("a");
    loop.post([shared, cb]() mutable { cb(*shared + "c"); });
    *shared += "b";  // runs before the inner task
  });
  ASSERT_NE(done.get(), nullptr);
  EXPECT_EQ(*done.get(), "abc");
}

TEST(EngineLoop, PostAfterWaits) {
  EngineLoop loop;
  const auto start = std::chrono::steady_clock::now();
  Outcome<std::chrono::steady_clock::time_point> fired;
  loop.post_after(60ms, [cb = fired.callback()] { cb(std::chrono::steady_clock::now()); });
  ASSERT_NE(fired.get(), nullptr);
  EXPECT_GE(*fired.get() - start, 55ms);
}

TEST(EngineLoop, LoopTimerStartStopRestart) {
  EngineLoop loop;
  Outcome<int> done;
  auto fired = std::make_shared<std::atomic<int>>(0);
  std::unique_ptr<LoopTimer> timer;
  loop.post([&] {
    timer = std::make_unique<LoopTimer>(loop);
    timer->start(20ms, [fired] { *fired += 100; });  // stopped before it fires
    EXPECT_TRUE(timer->active());
    timer->stop();
    EXPECT_FALSE(timer->active());
    timer->start(10ms, [fired] { *fired += 1; });
    timer->start(30ms, [fired] { *fired += 10; });  // restart replaces the first
  });
  loop.post_after(120ms, [&, cb = done.callback()] {
    timer.reset();
    cb(fired->load());
  });
  ASSERT_NE(done.get(), nullptr);
  EXPECT_EQ(*done.get(), 10);
}

TEST(EngineLoop, StopRefusesNewTasksAndRunsQueuedOnes) {
  auto loop = std::make_unique<EngineLoop>();
  std::atomic<int> ran{0};
  for (int i = 0; i < 10; ++i) loop->post([&] { ++ran; });
  loop->post_after(10s, [&] { ran += 1000; });  // dropped when the loop stops
  loop->stop();
  EXPECT_FALSE(loop->running());
  EXPECT_FALSE(loop->post([&] { ran += 100; }));
  loop.reset();  // joins
  EXPECT_EQ(ran.load(), 10);
}

TEST(EngineLoop, StopCancelsInFlightRequests) {
  // An engine that accepts and never answers: the request stays in flight until the loop stops.
  auto engine = testing::FakeEngine::on_unix_socket([](testing::FakeConnection& connection) {
    connection.read_request();
    connection.peer_closed(5s);
  });
  auto loop = std::make_unique<EngineLoop>();
  EngineClient client(*loop, EngineAddress::parse(engine->address()).value());
  Outcome<Result<JsonResponse>> outcome;
  client.get_json("/containers/json", outcome.callback(), RequestOptions::unbounded());
  std::this_thread::sleep_for(100ms);
  loop.reset();  // stop + join: the request completes with kCancelled first
  auto* result = outcome.get(0ms);
  ASSERT_NE(result, nullptr);
  ASSERT_FALSE(*result);
  EXPECT_EQ(result->error().kind, EngineErrorKind::kCancelled);

  // A call on a stopped loop completes at once, on the calling thread.
  EngineLoop stopped;
  stopped.stop();
  EngineClient late(stopped, EngineAddress::parse(engine->address()).value());
  Outcome<Result<JsonResponse>> refused;
  late.get_json("/_ping", refused.callback());
  ASSERT_NE(refused.get(0ms), nullptr);
  EXPECT_EQ(refused.get(0ms)->error().kind, EngineErrorKind::kCancelled);
}

}  // namespace
}  // namespace vc::engine
