// lane_ops.h — an accepted op whose blocking work runs on a plugin thread, with its cancel wired.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp). Op functions
// run on the host's loop thread and must not block, so a backend accepts the op there and hands
// the work to a lane of WorkLanes. Two things must then hold whatever races: the op completes
// exactly once (the registry sees to it), and a cancel reaches the work wherever it is — still
// queued, it is withdrawn and the op completes as cancelled at once; running, it cancels the
// CancelScope the work was given.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>

#include <vc-backend-1/vc_op.h>

#include "cancel_scope.h"
#include "op_registry.h"
#include "op_result.h"
#include "work_lanes.h"

namespace vc::sdk {

using Pending = std::shared_ptr<PendingOp>;

// What post_op() hands back when it queued the task: the accepted op and its place in the lane.
// Left empty when the op was completed at once instead.
struct PostedOp {
  Pending pending;
  WorkLanes::Ticket ticket = 0;
};

// [loop-thread] Accepts `op` and queues `task` on `lane`; the task completes the op itself,
// through `registry`. Once lanes.stop_and_join() has begun the op completes at once with
// VC_E_UNAVAILABLE instead (a rejection would reach the user without a message). When posting
// throws, the op is forgotten again and the exception propagates (the op table completes the op
// with VC_E_FAILED or VC_E_NO_MEMORY).
inline vc_status post_op(OpRegistry& registry, WorkLanes& lanes, const vc_op* op,
                         const std::string& lane, std::function<void(const Pending&)> task,
                         PostedOp* posted = nullptr) {
  Pending pending = registry.accept(op);
  WorkLanes::Ticket ticket = 0;
  try {
    ticket = lanes.post(lane, [pending, task = std::move(task)] { task(pending); });
  } catch (...) {
    registry.forget(pending);
    throw;
  }
  if (ticket == 0) {
    registry.complete(pending, OpResult::error(VC_E_UNAVAILABLE,
                                               "The backend is shutting down; the operation was "
                                               "not started."));
    return VC_OK;
  }
  if (posted != nullptr) *posted = PostedOp{std::move(pending), ticket};
  return VC_OK;
}

// [worker] An op's blocking work: returns how the op completes. A running work that set a
// canceller on `scope` is stopped by it; it then usually returns OpResult::cancelled().
using LaneWork = std::function<OpResult(const Pending& pending, CancelScope& scope)>;

// [loop-thread] Accepts `op` and runs `work` on `lane`; the op completes with what the work
// returns, or as cancelled without running it when the cancel came first. `registry` and
// `lanes` must outlive the op: close the registry and stop the lanes in destroy().
inline vc_status run_in_lane(OpRegistry& registry, WorkLanes& lanes, const vc_op* op,
                             const std::string& lane, LaneWork work) {
  auto scope = CancelScope::make();
  PostedOp posted;
  vc_status status = post_op(
      registry, lanes, op, lane,
      [&registry, scope, work = std::move(work)](const Pending& pending) {
        bool run = !pending->cancel_requested();
        registry.complete(pending, run ? work(pending, *scope) : OpResult::cancelled());
      },
      &posted);
  if (status != VC_OK || !posted.pending) return status;
  posted.pending->on_cancel([&registry, &lanes, lane, ticket = posted.ticket, scope,
                             weak = std::weak_ptr<PendingOp>(posted.pending)] {
    Pending pending = weak.lock();
    if (pending && lanes.withdraw(lane, ticket)) {
      registry.complete(pending, OpResult::cancelled());
    } else {
      scope->cancel();
    }
  });
  return VC_OK;
}

}  // namespace vc::sdk
