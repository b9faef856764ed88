// op_probe.h — runs one backend operation for validate-plugin and records everything it did:
// its result, its stdout and stderr bytes, how long it took, whether it completed before the
// deadline, and the contract violations the backend proxy logged meanwhile.
//
// A plugin under test may never complete an op, or complete it twice, or complete it from a
// thread long after; none of that may hang or crash the validator. So each op gets a deadline
// (after which it is cancelled and reported as not completed, and a later completion is
// ignored) and, after its completion, a short settling pause in which a second completion
// from a plugin thread still counts against this op.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <uv.h>

#include "backend_proxy/backend.h"
#include "common/cancellable.h"
#include "common/failure.h"
#include "common/json.h"
#include "operator/misbehaviour_log.h"

namespace vc::operator_cli {

// How long after a completion a second one is still attributed to the op.
inline constexpr uint64_t kSettleMs = 100;

// How long an op's call may hold the host's loop thread. The contract says an op function
// returns at once and does slow work elsewhere; a second is far above what any bookkeeping
// needs, even under sanitizers on a loaded machine, and far below what a blocking call costs.
inline constexpr uint64_t kCallBlockingLimitUs = 1'000'000;

// The op whose call held the loop thread longest, so far.
struct SlowestCall {
  const char* op = nullptr;  // nullptr: no op ran yet
  uint64_t call_us = 0;
};

struct ProbeOptions {
  std::string stdin_bytes;   // exec only
  uint64_t output_limit = 0; // host-side limit; 0 = none
  uint64_t deadline_ms = 0;  // 0: the runner's op timeout
};

struct ProbeResult {
  bool completed = false;  // false: the deadline passed first (the op was cancelled)
  Expected<Json> result = Failure{VC_E_FAILED, "not run"};
  std::string out;  // VC_STREAM_STDOUT bytes, in order
  std::string err;  // VC_STREAM_STDERR bytes, in order
  uint64_t elapsed_ms = 0;  // from start to completion (or to the deadline)
  std::vector<std::string> misbehaviours;  // logged between start and the end of settling
};

class OpProbe {
 public:
  // [loop-thread] `backend` and `log` must outlive every op run through this probe.
  OpProbe(uv_loop_t* loop, std::shared_ptr<backend_proxy::Backend> backend,
          std::shared_ptr<MisbehaviourLog> log, uint64_t op_timeout_ms);

  // [loop-thread] Starts `op`; `done` runs exactly once, on the loop, on a later turn. The
  // handle cancels the op (it is cancelled by the deadline too).
  CancelHandle run(backend_proxy::Operation op, const Json& request, ProbeOptions options,
                   std::function<void(ProbeResult)> done);

  uint64_t op_timeout_ms() const { return op_timeout_ms_; }

  // [loop-thread] The op whose call (the plugin's op function, through the proxy) took
  // longest to return, over every op run so far.
  const SlowestCall& slowest_call() const { return slowest_call_; }

 private:
  uv_loop_t* loop_;
  std::shared_ptr<backend_proxy::Backend> backend_;
  std::shared_ptr<MisbehaviourLog> log_;
  uint64_t op_timeout_ms_;
  SlowestCall slowest_call_;
};

}  // namespace vc::operator_cli
