// process_group_kill.cpp — the two ways of killing an exec's process group.
#include "process_group_kill.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <utility>

#include <sys/types.h>

#include "helper_exec.h"

namespace vc::container {
namespace {

// Small /proc files; reading them on the EngineLoop thread takes microseconds.
std::optional<std::string> read_proc_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) return std::nullopt;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

bool cgroup_mentions_container(std::string_view cgroup_text, std::string_view container_id) {
  return container_id.size() >= 12 && cgroup_text.find(container_id) != std::string_view::npos;
}

std::optional<std::int64_t> innermost_pid(std::string_view status_text) {
  auto line_start = status_text.find("NSpid:");
  if (line_start == std::string_view::npos) return std::nullopt;
  auto line_end = status_text.find('\n', line_start);
  std::string line(status_text.substr(line_start + 6, line_end == std::string_view::npos
                                                          ? std::string_view::npos
                                                          : line_end - line_start - 6));
  std::istringstream fields(line);
  std::int64_t pid = 0;
  std::optional<std::int64_t> last;
  while (fields >> pid) last = pid;
  return last;
}

void kill_exec_process_group(BackendContext& ctx, const std::string& exec_id,
                             const std::string& container, std::function<void(KillPath)> done) {
  // Once destroy() has begun the client may be gone: nothing of it is read from here on.
  if (ctx.shutting_down) return done(KillPath::kImpossible);
  // Read now, not in the answer: the answer may come after the client was released.
  const bool engine_on_this_machine = ctx.client.address().is_unix();
  // Counted until it is done, so that destroy() can let it finish.
  ++ctx.kills_in_flight;
  done = [&ctx, done = std::move(done)](KillPath path) {
    done(path);
    if (--ctx.kills_in_flight == 0 && ctx.when_no_kills) std::exchange(ctx.when_no_kills, {})();
  };
  inspect_exec(ctx, nullptr, exec_id, 1,
               [&ctx, exec_id, container, engine_on_this_machine,
                done = std::move(done)](Expected<ExecState> state) {
                 if (!state.ok()) {
                   if (!ctx.shutting_down) {
                     ctx.log.warn("Cannot kill the command of exec " + exec_id + ": " +
                                  state.error().message);
                   }
                   return done(KillPath::kImpossible);
                 }
                 const ExecState& exec = state.value();
                 if (!exec.running) return done(KillPath::kNothingToKill);
                 std::optional<std::int64_t> pgid_inside;
                 if (exec.pid > 0 && engine_on_this_machine) {
                   const std::string proc = "/proc/" + std::to_string(exec.pid);
                   auto cgroup = read_proc_file(proc + "/cgroup");
                   if (cgroup && cgroup_mentions_container(*cgroup, exec.container_id)) {
                     if (::kill(-static_cast<pid_t>(exec.pid), SIGKILL) == 0 || errno == ESRCH) {
                       return done(KillPath::kHost);
                     }
                     // EPERM: the engine runs as another user (rootful engine, unprivileged
                     // server). The container's root can still do it.
                   }
                   if (auto status = read_proc_file(proc + "/status")) {
                     pgid_inside = innermost_pid(*status);
                   }
                 }
                 // The host path needs no engine call; the in-container one starts an exec,
                 // which a backend being destroyed no longer may.
                 if (ctx.shutting_down) return done(KillPath::kImpossible);
                 if (!pgid_inside || *pgid_inside <= 1) {
                   ctx.log.warn("Cannot kill the command of exec " + exec_id + " in container " +
                                container + ": its process is not visible from this machine. "
                                "It may keep running until it ends by itself.");
                   return done(KillPath::kImpossible);
                 }
                 HelperExecRequest killer;
                 killer.container = container;
                 const std::string group = "-" + std::to_string(*pgid_inside);
                 killer.argv = {"/bin/sh", "-c", "kill -KILL " + group + " || kill -9 " + group};
                 killer.user = "0";
                 killer.timeout = std::chrono::seconds(10);
                 run_helper_exec(ctx, nullptr, killer,
                                 [&ctx, container, done](Expected<HelperExecResult> result) {
                                   if (!result.ok() || result.value().exit_code != 0) {
                                     ctx.log.warn("Killing a command's process group inside "
                                                  "container " + container + " failed: " +
                                                  (result.ok() ? result.value().stderr_text
                                                               : result.error().message));
                                     return done(KillPath::kImpossible);
                                   }
                                   done(KillPath::kInContainer);
                                 });
               });
}

}  // namespace vc::container
