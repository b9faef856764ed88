// exec_conclusion.cpp — the death check and the failures it leads to.
#include "exec_conclusion.h"

#include <chrono>
#include <utility>

#include "computer_info.h"
#include "computer_naming.h"
#include "engine_failure.h"

namespace vc::container {
namespace {

// Looks at the container after a command died of a signal, and the pause between them.
constexpr int kDeathChecks = 4;
constexpr std::chrono::milliseconds kDeathRecheckDelay{200};

struct FailedCommand {
  CommandScene scene;
  std::int64_t exit_code = -1;
  std::int64_t duration_ms = 0;
  std::string lost_why;
  std::function<void()> kill_leftovers;
  Callback<nlohmann::json> done;
};

void look_at_container(BackendContext& ctx, std::shared_ptr<FailedCommand> command,
                       int looks_left) {
  const std::string container = command->scene.container;
  inspect_container(
      ctx, nullptr, container,
      [&ctx, command, looks_left](Expected<std::optional<nlohmann::json>> r) {
        if (!r.ok() && r.error().status == VC_E_UNAVAILABLE) {
          // The engine itself is gone (restarting, stopped): that says nothing about the
          // computer, so it is not reported as the computer's death.
          return command->done(engine_lost_failure(ctx, command->scene, r.error().message));
        }
        const bool running = r.ok() && r.value() && is_running(*r.value());
        if (!running) return command->done(computer_not_running_failure(ctx, command->scene));
        const std::int64_t exit_code = command->exit_code;
        const bool killed = exit_code < 0 || exit_code >= 128;
        if (killed && looks_left > 1) {
          const bool posted = ctx.loop.post_after(kDeathRecheckDelay, [&ctx, command, looks_left] {
            look_at_container(ctx, command, looks_left - 1);
          });
          if (posted) return;
        }
        if (exit_code < 0) {
          if (command->kill_leftovers) command->kill_leftovers();
          return command->done(OpFailure{VC_E_FAILED,
                                         "Lost the command's output stream in container " +
                                             command->scene.container + ": " +
                                             command->lost_why + ".",
                                         error_details(ctx.profile, "exec_stream_lost", true)});
        }
        command->done(exec_result(exit_code, "exited", command->duration_ms));
      });
}

}  // namespace

void conclude_failed_command(BackendContext& ctx, CommandScene scene, std::int64_t exit_code,
                             std::int64_t duration_ms, std::string lost_why,
                             std::function<void()> kill_leftovers,
                             Callback<nlohmann::json> done) {
  auto command = std::make_shared<FailedCommand>();
  command->scene = std::move(scene);
  command->exit_code = exit_code;
  command->duration_ms = duration_ms;
  command->lost_why = std::move(lost_why);
  command->kill_leftovers = std::move(kill_leftovers);
  command->done = std::move(done);
  look_at_container(ctx, std::move(command), kDeathChecks);
}

OpFailure computer_not_running_failure(BackendContext& ctx, const CommandScene& scene) {
  const auto& record = *scene.record;
  const bool stopped_by_us =
      record.stop_generation() != scene.stop_generation_at_start || record.stop_in_progress();
  if (!stopped_by_us && record.engine_lost_since_running(ctx.client.connection_losses())) {
    return engine_lost_failure(ctx, scene,
                               "the " + ctx.profile.engine_display_name +
                                   " stopped the computer's container while it was away");
  }
  if (stopped_by_us) {
    return OpFailure{VC_E_COMPUTER_STOPPED,
                     "Sandbox has been stopped: computer '" + scene.computer_id +
                         "' was restarted, reset or removed while the command ran.",
                     error_details(ctx.profile, "computer_stopped", true)};
  }
  const std::string id = record.container_id.empty() ? scene.container
                                                     : short_container_id(record.container_id);
  return OpFailure{VC_E_COMPUTER_DIED, "Sandbox " + id + " died during command execution",
                   error_details(ctx.profile, "computer_died", false)};
}

OpFailure engine_lost_failure(BackendContext& ctx, const CommandScene& scene,
                              const std::string& why) {
  return OpFailure{VC_E_UNAVAILABLE,
                   "The " + ctx.profile.engine_display_name + " at " + ctx.address +
                       " went away while a command ran in computer '" + scene.computer_id +
                       "' (" + why + "); whether the command finished is unknown. The computer "
                       "and its files are kept: the next call starts it again once the engine "
                       "answers.",
                   error_details(ctx.profile, "engine_lost", true)};
}

}  // namespace vc::container
