// exec_conclusion.h — how a command's end becomes its result, whichever path ran it (the
// engine's exec, or the exec agent).
//
// The original's death check: a command that failed may have failed because the computer went
// away. The container is inspected; when it is not running the command's own result is not
// the answer, the computer's death is (or its stop, when this plugin stopped it meanwhile, or
// the engine's absence, when the engine itself went away). A container being killed takes the
// engine a moment to notice after its processes are gone, so a command that died of a signal
// (exit code >= 128, or none at all) gets a few more looks before it counts as an ordinary
// failure.
//
// EngineLoop thread only.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>
#include <vc_agent_channel/command_result.h>

#include "container_calls.h"

namespace vc::container {

// What the check needs to know about the command and its computer.
struct CommandScene {
  std::shared_ptr<ComputerRecord> record;
  std::string computer_id;
  std::string container;  // name
  std::uint64_t stop_generation_at_start = 0;
};

using agent_channel::exec_result;

// Concludes a command that exited with `exit_code` != 0, or whose output stream broke
// (`exit_code` < 0; `lost_why` says how). `kill_leftovers` ends what may still run of a command
// whose stream broke (nobody can read its output any more).
void conclude_failed_command(BackendContext& ctx, CommandScene scene, std::int64_t exit_code,
                             std::int64_t duration_ms, std::string lost_why,
                             std::function<void()> kill_leftovers,
                             Callback<nlohmann::json> done);

// The failure of a command whose computer is found not running: stopped by this plugin,
// stopped by an engine that went away, or dead.
OpFailure computer_not_running_failure(BackendContext& ctx, const CommandScene& scene);

// An engine restart is not the computer's death: the command's fate is unknown, the computer
// and its files are not touched, and the host's next call brings it up again.
OpFailure engine_lost_failure(BackendContext& ctx, const CommandScene& scene,
                              const std::string& why);

}  // namespace vc::container
