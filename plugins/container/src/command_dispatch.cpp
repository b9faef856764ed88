// command_dispatch.cpp — the exec agent first, the engine's exec where it cannot run.
#include "command_dispatch.h"

#include <utility>

#include "computer_agents.h"
#include "computer_naming.h"
#include "exec_session.h"

namespace vc::container {
namespace {

constexpr std::size_t kProbeOutputKept = 64 * 1024;

}  // namespace

void run_command(BackendContext& ctx, std::shared_ptr<ComputerRecord> record, sdk::ExecRequest request,
                 std::string stdin_bytes, ExecOutput::Emit emit, Callback<nlohmann::json> done,
                 std::function<bool()> cancelled,
                 std::function<void(std::shared_ptr<RunningCommand>)> started) {
  auto launch = [started = std::move(started)](std::shared_ptr<RunningCommand> command) {
    if (started) started(command);
    command->start();
  };
  if (ctx.options.exec_agent == ExecAgentMode::kOff) {
    return launch(std::make_shared<ExecSession>(ctx, record, std::move(request),
                                                std::move(stdin_bytes), std::move(emit),
                                                std::move(done)));
  }
  auto channel = exec_agent_channel_of(ctx, record);
  channel->open([&ctx, record, channel, request = std::move(request),
                 stdin_bytes = std::move(stdin_bytes), emit = std::move(emit),
                 done = std::move(done), cancelled = std::move(cancelled),
                 launch](Expected<Done> ready) mutable {
    if (cancelled && cancelled()) return done(cancelled_failure());
    if (ready.ok()) {
      return launch(std::make_shared<agent_channel::AgentExecSession>(
          ctx.clock, ctx.log, channel, command_ending_of(ctx, record), std::move(request),
          record->shell, std::move(stdin_bytes), std::move(emit), std::move(done)));
    }
    if (ready.error().status == VC_E_UNSUPPORTED && ctx.options.exec_agent == ExecAgentMode::kOn) {
      return done(ready.error());
    }
    // The agent cannot run here (already logged), or the attempt itself failed (the computer
    // is not running, the engine is away): the engine's exec runs the command, or says in the
    // usual words why it cannot.
    launch(std::make_shared<ExecSession>(ctx, record, std::move(request), std::move(stdin_bytes),
                                         std::move(emit), std::move(done)));
  });
}

void run_probe_command(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                       std::vector<std::string> argv, std::chrono::milliseconds timeout,
                       Callback<HelperExecResult> done) {
  if (ctx.options.exec_agent == ExecAgentMode::kOff) {
    HelperExecRequest probe;
    probe.container = container_name(record->computer_id);
    probe.argv = std::move(argv);
    probe.timeout = timeout;
    return run_helper_exec(ctx, nullptr, std::move(probe), std::move(done));
  }
  sdk::ExecRequest request;
  request.computer_id = record->computer_id;
  request.argv = std::move(argv);
  request.timeout_ms = timeout.count();
  auto collected = std::make_shared<HelperExecResult>();
  auto keep = [collected](vc_stream stream, std::string_view bytes) {
    std::string& text = stream == VC_STREAM_STDOUT ? collected->stdout_text : collected->stderr_text;
    if (text.size() < kProbeOutputKept) text.append(bytes.substr(0, kProbeOutputKept - text.size()));
    return VC_OK;
  };
  run_command(ctx, std::move(record), std::move(request), std::string(), std::move(keep),
              [collected, done = std::move(done)](Expected<nlohmann::json> outcome) {
                if (!outcome.ok()) return done(outcome.error());
                const auto& result = outcome.value();
                if (result.value("outcome", std::string()) == "timed_out") {
                  return done(OpFailure{VC_E_TIMEOUT, "the command did not finish in time",
                                        nullptr});
                }
                collected->exit_code = result.value("exit_code", std::int64_t{-1});
                done(std::move(*collected));
              },
              nullptr, nullptr);
}

}  // namespace vc::container
