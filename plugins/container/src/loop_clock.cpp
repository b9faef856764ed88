// loop_clock.cpp — engine::LoopTimer behind the channels' ChannelTimer.
#include "loop_clock.h"

#include <utility>

namespace vc::container {
namespace {

class LoopChannelTimer final : public agent_channel::ChannelTimer {
 public:
  explicit LoopChannelTimer(engine::EngineLoop& loop) : timer_(loop) {}
  void start(std::chrono::milliseconds delay, std::function<void()> on_fire) override {
    timer_.start(delay, std::move(on_fire));
  }
  void stop() override { timer_.stop(); }
  bool active() const override { return timer_.active(); }

 private:
  engine::LoopTimer timer_;
};

}  // namespace

std::unique_ptr<agent_channel::ChannelTimer> LoopClock::make_timer() {
  return std::make_unique<LoopChannelTimer>(loop_);
}

}  // namespace vc::container
