// op_record.h — the host's record of one started operation, and the vc_op the plugin sees.
//
// The record embeds the vc_op handed to the plugin (op->host_ctx points back to the record).
// Its complete/emit/is_cancelled functions run on any thread: they only copy the payload into
// a PumpEvent and post it; everything else happens when the loop thread dispatches the event.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include <vc-backend-1/vc_op.h>

#include "backend_proxy/backend.h"
#include "backend_proxy/completion_pump.h"
#include "backend_proxy/host_services.h"

namespace vc::backend_proxy {

// An op's emitted bytes that wait for the loop above this make emit() answer VC_E_BACKPRESSURE.
inline constexpr uint64_t kQueueHighWaterBytes = 16u * 1024u * 1024u;

// What the vc_op functions of one backend instance share. [any-thread]
struct OpChannel {
  std::shared_ptr<CompletionPump> pump;
  std::shared_ptr<HostServices> services;  // its logger gets the "plugin misbehaving" lines
  std::string backend_name;
  uint64_t queue_high_water = kQueueHighWaterBytes;
  std::atomic<uint64_t> backpressure_replies{0};
  std::atomic<uint64_t> misbehaviours{0};

  // Logs a contract violation by the plugin at warning level and counts it.
  void report_misbehaviour(const std::string& what);
};

struct OpRecord {
  OpRecord(uint64_t op_id, Operation op_operation, OpCallbacks op_callbacks,
           std::shared_ptr<OpChannel> op_channel);
  OpRecord(const OpRecord&) = delete;
  OpRecord& operator=(const OpRecord&) = delete;

  vc_op abi{};  // what the plugin gets; abi.host_ctx == this
  const uint64_t id;  // also abi.id: unique in the process, never reused (see vc_op.h)
  const Operation operation;
  const uint64_t output_limit;  // 0 = none
  const std::shared_ptr<OpChannel> channel;

  // [any-thread] state
  std::atomic<bool> completed{false};         // complete() was called (or the host completed it)
  std::atomic<bool> cancel_requested{false};  // what is_cancelled() reports
  std::atomic<bool> late_emit_reported{false};
  std::atomic<uint64_t> output_bytes{0};  // stdout+stderr bytes offered, taken or not
  std::atomic<uint64_t> queued_bytes{0};  // emitted bytes not yet dispatched

  // [loop-thread] state
  OpCallbacks callbacks;
  bool accepted_by_plugin = false;  // the op function returned VC_OK
  bool cancel_pushed = false;       // ops->cancel was called

  // [any-thread] The host completes the op itself (rejected, unsupported). False when a
  // completion was already posted (by a misbehaving plugin).
  bool complete_from_host(const Failure& failure);
};

}  // namespace vc::backend_proxy
