// agent_transport.h — what the in-computer agents' channels need of the cluster connection:
// long-lived exec streams into pods of the computers' namespace, and the thread they live on.
//
// The channels (vc_agent_channel) run on the API thread, where the exec streams' callbacks
// arrive; the backend's lanes hand them work with post() and wait for the answer.
//
// Thread rule: post() and start_exec() from any thread; clock() and its timers on the API
// thread only.
#pragma once

#include <functional>
#include <memory>

#include <vc_agent_channel/channel_clock.h>

#include "exec_stream.h"

namespace vc::kubernetes {

class AgentTransport {
 public:
  virtual ~AgentTransport() = default;
  // [any-thread] Runs `task` on the API thread, after what was posted before it.
  virtual void post(std::function<void()> task) = 0;
  // [API thread] One-shot timers on the API thread.
  virtual agent_channel::ChannelClock& clock() = 0;
  // [any-thread] Starts a command in a pod of the computers' namespace (`request`'s namespace
  // is set here); its callbacks run on the API thread.
  virtual std::shared_ptr<ExecStream> start_exec(ExecRequest request, ExecCallbacks callbacks) = 0;
};

}  // namespace vc::kubernetes
