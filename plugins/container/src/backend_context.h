// backend_context.h — what every flow of one backend instance shares: the engine client, the
// engine's profile, the parsed options and the per-computer records.
//
// Owned by ContainerBackend; flows hold a reference and run on the EngineLoop thread only.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>

#include <vc_engine/engine_client.h>

#include "backend_options.h"
#include "container_records.h"
#include "engine_failure.h"
#include "engine_profile.h"
#include "loop_clock.h"
#include <vc-backend-1/cpp/host_log.h>

namespace vc::container {

struct BackendContext {
  BackendContext(engine::EngineLoop& engine_loop, engine::EngineClient& engine_client,
                 const EngineProfile& engine_profile, BackendOptions backend_options,
                 sdk::HostLog host_log)
      : loop(engine_loop),
        clock(engine_loop),
        client(engine_client),
        profile(engine_profile),
        options(std::move(backend_options)),
        log(host_log),
        computers(engine_loop),
        address(engine_client.address().display()) {}

  engine::EngineLoop& loop;
  LoopClock clock;  // the loop's timers, for the agent channels
  engine::EngineClient& client;
  const EngineProfile& profile;
  const BackendOptions options;
  const sdk::HostLog log;
  ContainerRecords computers;
  const std::string address;  // as shown in messages: unix:///var/run/docker.sock

  // Set on the EngineLoop thread when destroy() begins: from then on no flow may start another
  // engine call.
  bool shutting_down = false;

  // Process-group kills under way (process_group_kill.h). The host's last cancels ask for kills
  // (a cancelled desktop action's agent, a cancelled command) just before destroy(), which lets
  // them finish, for a short while, before anything is torn down: a process left running would
  // go on acting in the computer after the server is gone. `when_no_kills` runs (once) when the
  // count falls to 0. EngineLoop thread.
  int kills_in_flight = 0;
  std::function<void()> when_no_kills;

  // Deadlines of an ordinary engine call (--engine-timeout).
  engine::RequestOptions call_deadlines() const {
    engine::RequestOptions deadlines = engine::RequestOptions::buffered();
    deadlines.timeout = options.engine_timeout;
    return deadlines;
  }

  OpFailure engine_failure(const engine::EngineError& error, std::string_view action) const {
    return failure_from_engine(profile, address, error, action);
  }
};

}  // namespace vc::container
