// op_probe.cpp — see op_probe.h.
#include "operator/op_probe.h"

#include <utility>

#include "common/uv_handles.h"

namespace vc::operator_cli {
namespace {

// One op in flight. Shared by the deadline timer, the settle timer and the backend's
// callbacks; whichever finishes it first wins, the others find `finished` set.
struct ProbeState {
  uv_loop_t* loop = nullptr;
  std::shared_ptr<MisbehaviourLog> log;
  size_t first_line = 0;
  uint64_t started_ms = 0;
  ProbeResult result;
  std::function<void(ProbeResult)> done;
  CancelHandle handle;
  uv_timer_t* timer = nullptr;  // the deadline, then the settling pause
  bool finished = false;
};

// [loop-thread] Hands the result over once and releases the timer.
void finish(const std::shared_ptr<ProbeState>& state) {
  if (state->finished) return;
  state->finished = true;
  state->result.misbehaviours = state->log->since(state->first_line);
  if (state->timer != nullptr) close_and_delete(std::exchange(state->timer, nullptr));
  auto done = std::move(state->done);
  state->handle.reset();
  done(std::move(state->result));
}

// [loop-thread] (Re)arms the probe's one timer to run `fn` after `ms`.
void arm(const std::shared_ptr<ProbeState>& state, uint64_t ms, void (*fn)(ProbeState&)) {
  if (state->timer == nullptr) return;
  struct Arm {
    std::shared_ptr<ProbeState> state;
    void (*fn)(ProbeState&);
  };
  // The timer's data owns a reference to the state until it fires or is closed.
  delete static_cast<Arm*>(state->timer->data);
  state->timer->data = new Arm{state, fn};
  uv_timer_start(
      state->timer,
      [](uv_timer_t* timer) {
        auto* arm = static_cast<Arm*>(timer->data);
        timer->data = nullptr;
        std::shared_ptr<ProbeState> held = std::move(arm->state);
        auto then = arm->fn;
        delete arm;
        then(*held);
      },
      ms, 0);
}

}  // namespace

OpProbe::OpProbe(uv_loop_t* loop, std::shared_ptr<backend_proxy::Backend> backend,
                 std::shared_ptr<MisbehaviourLog> log, uint64_t op_timeout_ms)
    : loop_(loop), backend_(std::move(backend)), log_(std::move(log)), op_timeout_ms_(op_timeout_ms) {}

CancelHandle OpProbe::run(backend_proxy::Operation op, const Json& request, ProbeOptions options,
                          std::function<void(ProbeResult)> done) {
  auto state = std::make_shared<ProbeState>();
  state->loop = loop_;
  state->log = log_;
  state->first_line = log_->size();
  state->started_ms = uv_now(loop_);
  state->done = std::move(done);
  state->timer = new uv_timer_t;
  uv_timer_init(loop_, state->timer);
  state->timer->data = nullptr;

  backend_proxy::OpCallbacks callbacks;
  std::weak_ptr<ProbeState> weak = state;
  callbacks.output_limit = options.output_limit;
  callbacks.on_emit = [weak](vc_stream stream, std::string_view bytes) {
    auto live = weak.lock();
    if (!live || live->finished) return;
    if (stream == VC_STREAM_STDOUT) live->result.out.append(bytes);
    if (stream == VC_STREAM_STDERR) live->result.err.append(bytes);
  };
  callbacks.on_complete = [weak](Expected<Json> result) {
    auto live = weak.lock();
    if (!live || live->finished || live->result.completed) return;
    live->result.completed = true;
    live->result.result = std::move(result);
    live->result.elapsed_ms = uv_now(live->loop) - live->started_ms;
    // A second completion from a plugin thread lands within the pause, not in the next check.
    arm(live, kSettleMs, [](ProbeState& settled) {
      // The state is alive: the timer's reference is held while this runs.
      finish(std::shared_ptr<ProbeState>(std::shared_ptr<ProbeState>{}, &settled));
    });
  };

  const uint64_t deadline = options.deadline_ms > 0 ? options.deadline_ms : op_timeout_ms_;
  arm(state, deadline, [](ProbeState& late) {
    late.result.completed = false;
    late.result.elapsed_ms = uv_now(late.loop) - late.started_ms;
    late.result.result = Failure{VC_E_TIMEOUT, "did not complete within " +
                                                   std::to_string(late.result.elapsed_ms / 1000) +
                                                   " s"};
    if (late.handle) late.handle->cancel();
    finish(std::shared_ptr<ProbeState>(std::shared_ptr<ProbeState>{}, &late));
  });
  const uint64_t call_started_ns = uv_hrtime();
  state->handle = backend_->start(op, request, std::move(callbacks), options.stdin_bytes);
  const uint64_t call_us = (uv_hrtime() - call_started_ns) / 1000;
  if (slowest_call_.op == nullptr || call_us > slowest_call_.call_us) {
    slowest_call_ = SlowestCall{backend_proxy::operation_name(op), call_us};
  }
  return state->handle;
}

}  // namespace vc::operator_cli
