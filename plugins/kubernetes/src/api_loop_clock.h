// api_loop_clock.h — Asio timers on the API thread, as the agent channels' clock
// (vc_agent_channel/channel_clock.h).
//
// Thread rule: make_timer() and every timer's calls on the API thread; a timer may be destroyed
// there only (its pending wait is cancelled then, and its callback does not run).
#pragma once

#include <memory>

#include <vc_agent_channel/channel_clock.h>

#include "api_loop.h"

namespace vc::kubernetes {

class ApiLoopClock final : public agent_channel::ChannelClock {
 public:
  explicit ApiLoopClock(ApiLoop& loop) : loop_(loop) {}
  std::unique_ptr<agent_channel::ChannelTimer> make_timer() override;

 private:
  ApiLoop& loop_;
};

}  // namespace vc::kubernetes
