// desktop_view_proxy_test.cpp — DesktopViewProxy without a cluster (label "quick"): browsers are
// loopback connections (loopback_client.h), pods are fakes (fake_pod_port.h). Bytes both ways,
// several MiB with backpressure each way, either side's end ending the other, the connection
// bound, retargeting, stopping, destruction on the loop thread, and the listener's errors.
// Thread rule: the test's thread drives clients and waits; the proxy and the fakes live on the
// ApiLoop (reached with on_loop()).
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "desktop_view_proxy.h"
#include "fake_pod_port.h"
#include "log_recorder.h"
#include "loopback_client.h"

namespace vc::kubernetes::testing {
namespace {

using namespace std::chrono_literals;

constexpr auto kLimit = 30s;

// Waits (polling) until `condition()`, or `limit`; returns the former.
bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit = kLimit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(10ms);
  }
  return true;
}

// Bytes that show where they are: a change, a loss or a reordering does not go unnoticed.
std::string patterned_bytes(std::size_t size, unsigned seed) {
  std::string bytes(size, '\0');
  for (std::size_t i = 0; i < size; ++i) {
    bytes[i] = static_cast<char>((i * 31 + i / 4096 + seed) & 0xff);
  }
  return bytes;
}

// The loop, the fakes, the log and the proxy of one test; destroyed in that order's reverse.
class DesktopViewProxyTest : public ::testing::Test {
 protected:
  void start_proxy(FakePodPortConfig pods = {}, DesktopViewProxyOptions options = {}) {
    fakes_ = std::make_unique<FakePodPorts>(loop_, pods);
    if (options.subject == DesktopViewProxyOptions{}.subject) {
      options.subject = "the desktop of computer c1";
    }
    auto started = DesktopViewProxy::start(loop_, "kilntainer-c1", fakes_->opener(),
                                           std::move(options), log_.log());
    ASSERT_TRUE(started.ok()) << started.error().message;
    proxy_ = std::move(started).value();
    ASSERT_NE(proxy_->port(), 0);
  }

  // Waits until the proxy has opened `count` streams in all.
  bool streams_opened(std::size_t count) {
    return eventually([&] { return fakes_->count() >= count; });
  }

  // Waits until the n-th stream has ended.
  bool stream_ended(std::size_t n) {
    return eventually([&] { return fakes_->with(n, [](FakePodPort& pod) { return pod.ended; }); });
  }

  void TearDown() override {
    proxy_.reset();
    fakes_.reset();
  }

  ApiLoop loop_;
  LogRecorder log_;
  std::unique_ptr<FakePodPorts> fakes_;
  std::unique_ptr<DesktopViewProxy> proxy_;
};

TEST_F(DesktopViewProxyTest, RelaysBytesBothWays) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  LoopbackClient browser(proxy_->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  browser.begin_send("GET /vnc.html HTTP/1.1\r\n\r\n");
  ASSERT_TRUE(browser.run_for(kLimit));
  ASSERT_TRUE(streams_opened(1));
  EXPECT_EQ(fakes_->with(0, [](FakePodPort& pod) { return pod.pod; }), "kilntainer-c1");
  ASSERT_TRUE(eventually([&] {
    return fakes_->with(0, [](FakePodPort& pod) { return pod.received.size(); }) >= 26;
  }));
  EXPECT_EQ(fakes_->with(0, [](FakePodPort& pod) { return pod.received; }),
            "GET /vnc.html HTTP/1.1\r\n\r\n");

  fakes_->with(0, [](FakePodPort& pod) {
    pod.send("HTTP/1.1 200 OK\r\n");
    return 0;
  });
  ASSERT_TRUE(browser.exchange("", 17, kLimit));
  EXPECT_EQ(browser.received, "HTTP/1.1 200 OK\r\n");
  EXPECT_FALSE(browser.ended);
  EXPECT_EQ(proxy_->open_connections(), 1u);
}

// The browser sends 8 MiB to a pod that echoes them with small queues: every hop waits for the
// next, and the bytes come back whole and in order.
TEST_F(DesktopViewProxyTest, SeveralMebibytesGoBothWaysWithBackpressure) {
  FakePodPortConfig pods;
  pods.echo = true;
  pods.max_queued_bytes = 64 * 1024;
  pods.message_bytes = 16 * 1024;
  pods.echo_backlog = 128 * 1024;
  pods.read_bytes_per_step = 4 * 1024;  // slower than the browser sends: the queue fills
  DesktopViewProxyOptions options;
  options.read_chunk_bytes = 16 * 1024;
  options.pause_bytes = 64 * 1024;
  options.max_buffered_bytes = 1024 * 1024;
  ASSERT_NO_FATAL_FAILURE(start_proxy(pods, options));

  constexpr std::size_t kTotal = 8 * 1024 * 1024;
  const std::string input = patterned_bytes(kTotal, 7);
  LoopbackClient browser(proxy_->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  ASSERT_TRUE(browser.exchange(input, kTotal, 120s))
      << "sent " << browser.sent << ", received " << browser.received.size();
  EXPECT_TRUE(browser.received == input) << "the bytes came back changed";
  EXPECT_FALSE(browser.ended);

  const auto [full, drained, most_queued] = fakes_->with(0, [](FakePodPort& pod) {
    return std::tuple(pod.full_answers, pod.drained_calls, pod.max_queued_seen);
  });
  EXPECT_GT(full, 0) << "the stream's queue never filled: no backpressure was exercised";
  EXPECT_GT(drained, 0);
  EXPECT_LE(most_queued, pods.max_queued_bytes);
}

// The pod sends 16 MiB to a browser that does not read: the proxy pauses the stream instead of
// holding it all (its bound is 1 MiB here); once the browser reads, everything arrives.
TEST_F(DesktopViewProxyTest, APodSendingToABrowserThatDoesNotReadIsPaused) {
  FakePodPortConfig pods;
  pods.message_bytes = 32 * 1024;
  DesktopViewProxyOptions options;
  options.pause_bytes = 128 * 1024;
  options.max_buffered_bytes = 1024 * 1024;
  ASSERT_NO_FATAL_FAILURE(start_proxy(pods, options));

  constexpr std::size_t kTotal = 16 * 1024 * 1024;
  const std::string output = patterned_bytes(kTotal, 3);
  LoopbackClient browser(proxy_->port(), 64 * 1024);
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  ASSERT_TRUE(streams_opened(1));
  fakes_->with(0, [&](FakePodPort& pod) {
    pod.send(output);
    return 0;
  });

  // Delivery stops while the browser reads nothing: the stream stays paused.
  std::size_t delivered = 0;
  ASSERT_TRUE(eventually([&] {
    const auto [now, pauses] = fakes_->with(
        0, [](FakePodPort& pod) { return std::pair(pod.delivered, pod.pauses); });
    const bool still = pauses > 0 && now == delivered;
    delivered = now;
    if (!still) std::this_thread::sleep_for(300ms);
    return still;
  })) << "the pod's side never stopped sending";
  EXPECT_LT(delivered, kTotal);
  RecordProperty("delivered_while_unread", std::to_string(delivered));

  ASSERT_TRUE(browser.exchange("", kTotal, 120s)) << "received " << browser.received.size();
  EXPECT_TRUE(browser.received == output) << "the bytes arrived changed";
  EXPECT_FALSE(browser.ended);
  EXPECT_GT(fakes_->with(0, [](FakePodPort& pod) { return pod.resumes; }), 0);
  EXPECT_EQ(proxy_->open_connections(), 1u);
}

// A stream that keeps sending although paused ends its connection at max_buffered_bytes.
TEST_F(DesktopViewProxyTest, AStreamThatIgnoresThePauseEndsAtTheBound) {
  FakePodPortConfig pods;
  DesktopViewProxyOptions options;
  options.pause_bytes = 64 * 1024;
  options.max_buffered_bytes = 1024 * 1024;
  ASSERT_NO_FATAL_FAILURE(start_proxy(pods, options));
  LoopbackClient browser(proxy_->port(), 64 * 1024);
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  ASSERT_TRUE(streams_opened(1));
  // Straight to on_data, as a stream that ignores pause_receiving() would.
  fakes_->with(0, [](FakePodPort& pod) {
    pod.send_ignoring_pause(patterned_bytes(16 * 1024 * 1024, 1));
    return 0;
  });
  ASSERT_TRUE(eventually([&] { return proxy_->open_connections() == 0; }));
  EXPECT_EQ(fakes_->with(0, [](FakePodPort& pod) { return pod.cancels; }), 1);
  EXPECT_EQ(log_.lines_with("sent more than 1 MiB the browser had not taken yet").size(), 1u);
  EXPECT_TRUE(browser.receive_until_end(kLimit));
  EXPECT_LT(browser.received.size(), 16u * 1024 * 1024);
}

// The browser sends 16 MiB to a pod that reads nothing: the proxy reads no more than the
// stream takes; once the pod reads, everything arrives.
TEST_F(DesktopViewProxyTest, ABrowserSendingToAPodThatDoesNotReadIsHeldBack) {
  FakePodPortConfig pods;
  pods.reads = false;
  pods.max_queued_bytes = 64 * 1024;
  DesktopViewProxyOptions options;
  options.read_chunk_bytes = 16 * 1024;
  ASSERT_NO_FATAL_FAILURE(start_proxy(pods, options));

  constexpr std::size_t kTotal = 16 * 1024 * 1024;
  const std::string input = patterned_bytes(kTotal, 5);
  LoopbackClient browser(proxy_->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  browser.begin_send(input);
  EXPECT_FALSE(browser.run_for(1s)) << "16 MiB went out although the pod reads nothing";
  ASSERT_TRUE(streams_opened(1));
  const auto [full, most_queued, received] = fakes_->with(0, [](FakePodPort& pod) {
    return std::tuple(pod.full_answers, pod.max_queued_seen, pod.received.size());
  });
  EXPECT_GT(full, 0);
  EXPECT_LE(most_queued, pods.max_queued_bytes);
  EXPECT_EQ(received, 0u);

  fakes_->with(0, [](FakePodPort& pod) {
    pod.set_reads(true);
    return 0;
  });
  ASSERT_TRUE(browser.run_for(120s)) << "sent " << browser.sent;
  ASSERT_TRUE(browser.sent_all) << browser.send_error.message();
  ASSERT_TRUE(eventually([&] {
    return fakes_->with(0, [](FakePodPort& pod) { return pod.received.size(); }) >= kTotal;
  }));
  EXPECT_TRUE(fakes_->with(0, [&](FakePodPort& pod) { return pod.received == input; }))
      << "the bytes arrived changed";
}

TEST_F(DesktopViewProxyTest, TheBrowserClosingClosesTheStreamAfterItsBytes) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  LoopbackClient browser(proxy_->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  browser.begin_send("bye");
  ASSERT_TRUE(browser.run_for(kLimit));
  ASSERT_TRUE(streams_opened(1));
  browser.close();
  ASSERT_TRUE(eventually([&] { return proxy_->open_connections() == 0; }));
  fakes_->with(0, [](FakePodPort& pod) {
    EXPECT_EQ(pod.received, "bye");
    EXPECT_EQ(pod.closes, 1);
    EXPECT_EQ(pod.cancels, 0);
    EXPECT_TRUE(pod.ended);
    EXPECT_TRUE(pod.how_it_ended && pod.how_it_ended->ok());
    return 0;
  });
  EXPECT_TRUE(log_.lines_with("").empty()) << log_.lines_with("").front();
}

// The pod's last 6 MiB come without pausing, so that when its side ends most of them still wait
// in the proxy (the browser reads nothing until then): they reach the browser all the same.
TEST_F(DesktopViewProxyTest, ThePodsSideClosingClosesTheBrowsersConnectionAfterItsBytes) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  LoopbackClient browser(proxy_->port(), 64 * 1024);
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  ASSERT_TRUE(streams_opened(1));
  const std::string last_words = patterned_bytes(6 * 1024 * 1024, 9);
  fakes_->with(0, [&](FakePodPort& pod) {
    pod.send_ignoring_pause(last_words);
    pod.end_after_sending(ApiExpected<void>());
    return 0;
  });
  ASSERT_TRUE(stream_ended(0));
  ASSERT_TRUE(browser.receive_until_end(kLimit)) << "received " << browser.received.size();
  EXPECT_TRUE(browser.received == last_words) << "received " << browser.received.size();
  EXPECT_TRUE(eventually([&] { return proxy_->open_connections() == 0; }));
  EXPECT_TRUE(log_.lines_with("").empty()) << log_.lines_with("").front();
}

TEST_F(DesktopViewProxyTest, APodThatRefusesIsLoggedAndTheBrowserSeesTheEnd) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  LoopbackClient browser(proxy_->port());
  ASSERT_FALSE(browser.connect_error) << browser.connect_error.message();
  ASSERT_TRUE(streams_opened(1));
  const std::string refusal =
      "Cannot forward port 6080 of pod kilntainer-c1 in namespace vc: error forwarding port "
      "6080 to pod 1234, uid : dial tcp4 127.0.0.1:6080: connect: connection refused.";
  fakes_->with(0, [&](FakePodPort& pod) {
    pod.end_after_sending(ApiError{ApiErrorKind::server, 0, "", refusal});
    return 0;
  });
  EXPECT_TRUE(browser.receive_until_end(kLimit));
  EXPECT_EQ(browser.received, "");
  const auto lines = log_.lines_with(refusal);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines.front(), "A connection to the desktop of computer c1 at 127.0.0.1:" +
                               std::to_string(proxy_->port()) + " was closed: " + refusal);
  EXPECT_TRUE(eventually([&] { return proxy_->open_connections() == 0; }));
}

TEST_F(DesktopViewProxyTest, AtMostMaxConnectionsAreRelayedAtOnce) {
  DesktopViewProxyOptions options;
  options.max_connections = 2;
  ASSERT_NO_FATAL_FAILURE(start_proxy({}, options));
  LoopbackClient first(proxy_->port());
  LoopbackClient second(proxy_->port());
  ASSERT_TRUE(streams_opened(2));
  ASSERT_EQ(proxy_->open_connections(), 2u);

  LoopbackClient third(proxy_->port());
  ASSERT_FALSE(third.connect_error) << third.connect_error.message();
  EXPECT_TRUE(third.receive_until_end(kLimit)) << "the connection beyond the bound stayed open";
  EXPECT_EQ(fakes_->count(), 2u);
  EXPECT_EQ(log_.lines_with("Refused a connection to the desktop of computer c1 at 127.0.0.1:" +
                            std::to_string(proxy_->port()) +
                            ": 2 connections are open, the most it relays at once.")
                .size(),
            1u);

  // The first two still relay.
  second.begin_send("still here");
  ASSERT_TRUE(second.run_for(kLimit));
  EXPECT_TRUE(eventually([&] {
    return fakes_->with(1, [](FakePodPort& pod) { return pod.received; }) == "still here";
  }));

  // Once one ends, there is room again.
  first.close();
  ASSERT_TRUE(eventually([&] { return proxy_->open_connections() == 1; }));
  LoopbackClient fourth(proxy_->port());
  ASSERT_TRUE(streams_opened(3));
  EXPECT_EQ(proxy_->open_connections(), 2u);
}

TEST_F(DesktopViewProxyTest, RetargetingSendsLaterConnectionsToTheNewPod) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  LoopbackClient before(proxy_->port());
  ASSERT_TRUE(streams_opened(1));
  proxy_->retarget("kilntainer-c1-restarted");
  LoopbackClient after(proxy_->port());
  ASSERT_TRUE(streams_opened(2));
  EXPECT_EQ(fakes_->with(0, [](FakePodPort& pod) { return pod.pod; }), "kilntainer-c1");
  EXPECT_EQ(fakes_->with(1, [](FakePodPort& pod) { return pod.pod; }),
            "kilntainer-c1-restarted");
  // The connection made before stays with its pod.
  EXPECT_EQ(fakes_->with(0, [](FakePodPort& pod) { return pod.ended; }), false);
}

TEST_F(DesktopViewProxyTest, StopClosesTheListenerAndEveryConnection) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  const std::uint16_t port = proxy_->port();
  LoopbackClient first(port);
  LoopbackClient second(port);
  ASSERT_TRUE(streams_opened(2));

  proxy_->stop();
  // stop() has waited for the streams' ends.
  EXPECT_EQ(proxy_->open_connections(), 0u);
  for (std::size_t n = 0; n < 2; ++n) {
    fakes_->with(n, [](FakePodPort& pod) {
      EXPECT_EQ(pod.cancels, 1);
      EXPECT_TRUE(pod.ended);
      return 0;
    });
  }
  EXPECT_TRUE(first.receive_until_end(kLimit));
  EXPECT_TRUE(second.receive_until_end(kLimit));
  LoopbackClient late(port);
  EXPECT_EQ(late.connect_error, boost::asio::error::connection_refused)
      << late.connect_error.message();
  proxy_->stop();  // again: nothing more happens
  EXPECT_EQ(proxy_->port(), port);
  EXPECT_TRUE(log_.lines_with("").empty()) << log_.lines_with("").front();
}

// Destroyed by a task on the loop thread, with a connection open: nothing waits there, the
// stream is cancelled and the browser's connection closed all the same.
TEST_F(DesktopViewProxyTest, DestroyingOnTheLoopThreadEndsEverything) {
  ASSERT_NO_FATAL_FAILURE(start_proxy());
  LoopbackClient browser(proxy_->port());
  ASSERT_TRUE(streams_opened(1));
  on_loop(loop_, [this] {
    proxy_.reset();
    return 0;
  });
  EXPECT_TRUE(browser.receive_until_end(kLimit));
  EXPECT_TRUE(stream_ended(0));
  EXPECT_EQ(fakes_->with(0, [](FakePodPort& pod) { return pod.cancels; }), 1);
}

TEST_F(DesktopViewProxyTest, AGivenFreePortIsListenedOn) {
  boost::asio::io_context context;
  boost::asio::ip::tcp::acceptor probe(context, {boost::asio::ip::address_v4::loopback(), 0});
  const std::uint16_t free_port = probe.local_endpoint().port();
  probe.close();
  DesktopViewProxyOptions options;
  options.port = free_port;
  ASSERT_NO_FATAL_FAILURE(start_proxy({}, options));
  EXPECT_EQ(proxy_->port(), free_port);
  LoopbackClient browser(free_port);
  EXPECT_FALSE(browser.connect_error) << browser.connect_error.message();
  EXPECT_TRUE(streams_opened(1));
}

TEST_F(DesktopViewProxyTest, APortInUseIsASentence) {
  boost::asio::io_context context;
  boost::asio::ip::tcp::acceptor other(context, {boost::asio::ip::address_v4::loopback(), 0});
  const std::uint16_t taken = other.local_endpoint().port();
  FakePodPorts fakes(loop_, {});
  DesktopViewProxyOptions options;
  options.port = taken;
  options.subject = "the desktop of computer c1";
  auto started =
      DesktopViewProxy::start(loop_, "kilntainer-c1", fakes.opener(), options, log_.log());
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().message,
            "Cannot listen on 127.0.0.1:" + std::to_string(taken) +
                " for the desktop of computer c1: the port is already in use. Choose another "
                "port, or 0 to let the system pick a free one.");
}

}  // namespace
}  // namespace vc::kubernetes::testing
