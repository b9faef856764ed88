// channel_clock.h — one-shot timers on the thread an agent channel lives on.
//
// The channels of this room live on one thread of the plugin's choosing (the container
// plugins: their engine loop; the Kubernetes plugin: its API thread) and need nothing of that
// thread but timers. Each plugin provides them through a ChannelClock.
//
// Thread rule: the channel's thread only, for every call; a timer's callback runs there too.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

namespace vc::agent_channel {

class ChannelTimer {
 public:
  // Destroying a timer stops it.
  virtual ~ChannelTimer() = default;
  // (Re)starts the timer: `on_fire` runs once after `delay`, unless stop() or another start()
  // comes first.
  virtual void start(std::chrono::milliseconds delay, std::function<void()> on_fire) = 0;
  // Stops the timer if it runs. Idempotent.
  virtual void stop() = 0;
  virtual bool active() const = 0;
};

class ChannelClock {
 public:
  virtual ~ChannelClock() = default;
  virtual std::unique_ptr<ChannelTimer> make_timer() = 0;
};

}  // namespace vc::agent_channel
