// process_group_kill.h — ending an exec'd command and everything it started.
//
// The Engine API has no "kill exec" call, and closing the exec's connection does not stop the
// process (the engine only detaches it). Under runc the exec'd process leads its own session
// and process group, and its children inherit the group, so killing the group ends the whole
// tree:
//   1. host path: when the engine runs on this machine and /proc/<Pid> (exec inspect's host
//      PID) belongs to the container (its cgroup names the container id), kill(-Pid, SIGKILL)
//      from here: instant;
//   2. in-container path: otherwise a second exec, as root, runs `kill -KILL -<pgid>` with the
//      PID the process has inside the container (the last NSpid field of /proc/<Pid>/status).
// When neither is possible (an engine on another machine, whose PIDs are not visible here) the
// command is left running and a warning is logged.
//
// Shutdown: a kill may be asked for by the host's last cancels, just before destroy(). Kills
// are counted in ctx.kills_in_flight, and destroy() lets them finish (for a bounded time)
// before it tears anything down. One still under way then reads the client only when it is
// called; once ctx.shutting_down is set it starts nothing (called then, or answered then: the
// host path, which needs no engine call, is still taken; the in-container one is not).
//
// EngineLoop thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "container_calls.h"

namespace vc::container {

enum class KillPath { kNothingToKill, kHost, kInContainer, kImpossible };

// Kills the process group of exec `exec_id` in container `container` (name).
void kill_exec_process_group(BackendContext& ctx, const std::string& exec_id,
                             const std::string& container, std::function<void(KillPath)> done);

// Pure helpers, exposed for tests.
// True when a /proc/<pid>/cgroup text mentions `container_id` (cgroup v1 and v2 paths both
// carry the full container id: /docker/<id>, /system.slice/docker-<id>.scope, libpod-<id>).
bool cgroup_mentions_container(std::string_view cgroup_text, std::string_view container_id);
// The innermost namespace PID from a /proc/<pid>/status text ("NSpid:\t28991\t8" -> 8).
std::optional<std::int64_t> innermost_pid(std::string_view status_text);

}  // namespace vc::container
