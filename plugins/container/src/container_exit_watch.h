// container_exit_watch.h — noticing that a computer stopped without being asked to.
//
// A long poll, POST /containers/{id}/wait?condition=next-exit, answers when the container
// next exits (its headers arrive at once, which proves the wait is registered). When it
// answers, the watch asks the computer's record whether this plugin stopped the container on
// purpose (restart, remove, factory reset, a failed readiness check): then it waits for that
// operation to finish and watches the (possibly new) container again; otherwise the computer
// died and the op completes with {"exit_code":n,"reason":"exited"|"oom"|"removed"}.
// A broken wait connection (engine restart) is retried after re-inspecting the container. A
// container found stopped after the engine was unreachable (Docker stops its containers when
// dockerd shuts down) was stopped by the engine, not dead: the op then fails with
// VC_E_UNAVAILABLE "<engine>.engine_restarted", as it does when the engine stays away for
// about 30 s; neither is a death.
// Cancel closes the connection; the op then completes with VC_E_CANCELLED.
//
// EngineLoop thread only.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include <vc_engine/engine_loop.h>

#include "cancel_scope.h"
#include "container_calls.h"
#include "container_records.h"

namespace vc::container {

class ContainerExitWatch : public std::enable_shared_from_this<ContainerExitWatch> {
 public:
  ContainerExitWatch(BackendContext& ctx, std::shared_ptr<ComputerRecord> record,
                     Callback<nlohmann::json> done);

  void start();
  void cancel();

 private:
  void arm();
  void on_inspected(Expected<std::optional<nlohmann::json>> inspected);
  void on_wait_answer(engine::Result<engine::JsonResponse> answer);
  void retry_later();
  void died(nlohmann::json container, std::optional<std::int64_t> exit_code);
  void finish(Expected<nlohmann::json> outcome);

  BackendContext& ctx_;
  std::shared_ptr<ComputerRecord> record_;
  Callback<nlohmann::json> done_;
  std::shared_ptr<CancelScope> scope_ = CancelScope::make();
  // The session owns itself from start() to finish(): between engine calls only timers refer
  // to it, and they hold it weakly.
  std::shared_ptr<ContainerExitWatch> keep_alive_;
  std::uint64_t armed_generation_ = 0;
  std::string watched_id_;
  int consecutive_failures_ = 0;
  std::unique_ptr<engine::LoopTimer> retry_timer_;
};

}  // namespace vc::container
