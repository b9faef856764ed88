// process_calls.cpp — open the computer's exec agent, then one process-call through it.
#include "process_calls.h"

#include <utility>

#include <vc_agent_channel/process_call.h>

#include "computer_agents.h"

namespace vc::container {

void run_process_call(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                      nlohmann::json agent_request, Callback<nlohmann::json> done,
                      std::function<bool()> cancelled,
                      std::function<void(std::shared_ptr<agent_channel::RunningCommand>)> started) {
  if (ctx.options.exec_agent == ExecAgentMode::kOff) {
    return done(OpFailure{VC_E_UNSUPPORTED,
                          "Processes need the exec agent in the computer, and this server runs "
                          "with --exec-agent off.",
                          nullptr});
  }
  auto channel = exec_agent_channel_of(ctx, record);
  channel->open([&ctx, record, channel, agent_request = std::move(agent_request),
                 done = std::move(done), cancelled = std::move(cancelled),
                 started = std::move(started)](Expected<Done> ready) mutable {
    if (cancelled && cancelled()) return done(cancelled_failure());
    if (!ready.ok()) {
      OpFailure failure = ready.error();
      if (failure.status == VC_E_UNSUPPORTED) {
        failure.message = "Processes need the exec agent, which cannot run in computer " +
                          record->computer_id + ": " + failure.message;
      }
      return done(std::move(failure));
    }
    auto call = agent_channel::run_process_call(ctx.clock, ctx.log, channel,
                                                [&ctx, record] { return command_ending_of(ctx, record); },
                                                record->computer_id,
                                                std::move(agent_request), std::move(done));
    if (started) started(std::move(call));
  });
}

}  // namespace vc::container
