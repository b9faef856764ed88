// api_loop_clock.cpp — boost::asio::steady_timer behind ChannelTimer.
#include "api_loop_clock.h"

#include <utility>

#include <boost/asio/steady_timer.hpp>

namespace vc::kubernetes {
namespace {

class AsioChannelTimer final : public agent_channel::ChannelTimer {
 public:
  explicit AsioChannelTimer(boost::asio::io_context& context) : timer_(context) {}
  ~AsioChannelTimer() override { stop(); }

  void start(std::chrono::milliseconds delay, std::function<void()> on_fire) override {
    stop();
    // Each start gets its own generation: a wait cancelled by stop() or a later start() may
    // still be queued with operation_aborted, or even with success when it had already
    // expired; only the current generation fires.
    const auto generation = ++generation_;
    active_ = true;
    timer_.expires_after(delay);
    timer_.async_wait([this, generation, on_fire = std::move(on_fire),
                       alive = std::weak_ptr<bool>(alive_)](const boost::system::error_code& error) {
      if (error || alive.expired() || generation != generation_) return;
      active_ = false;
      on_fire();
    });
  }

  void stop() override {
    ++generation_;
    active_ = false;
    timer_.cancel();
  }

  bool active() const override { return active_; }

 private:
  boost::asio::steady_timer timer_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::uint64_t generation_ = 0;
  bool active_ = false;
};

}  // namespace

std::unique_ptr<agent_channel::ChannelTimer> ApiLoopClock::make_timer() {
  return std::make_unique<AsioChannelTimer>(loop_.context());
}

}  // namespace vc::kubernetes
