// loop_clock.h — the engine loop's timers, as the agent channels' clock
// (vc_agent_channel/channel_clock.h): the container plugins' channels live on the EngineLoop.
//
// EngineLoop thread only.
#pragma once

#include <memory>

#include <vc_agent_channel/channel_clock.h>
#include <vc_engine/engine_loop.h>

namespace vc::container {

class LoopClock final : public agent_channel::ChannelClock {
 public:
  explicit LoopClock(engine::EngineLoop& loop) : loop_(loop) {}
  std::unique_ptr<agent_channel::ChannelTimer> make_timer() override;

 private:
  engine::EngineLoop& loop_;
};

}  // namespace vc::container
