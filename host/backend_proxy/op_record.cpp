#include "backend_proxy/op_record.h"

#include <spdlog/spdlog.h>

namespace vc::backend_proxy {

namespace {

OpRecord* record_of(const vc_op* op) {
  return op == nullptr ? nullptr : static_cast<OpRecord*>(op->host_ctx);
}

bool is_output_stream(vc_stream stream) {
  return stream == VC_STREAM_STDOUT || stream == VC_STREAM_STDERR;
}

bool is_known_stream(vc_stream stream) {
  return is_output_stream(stream) || stream == VC_STREAM_PROGRESS;
}

std::string describe(const OpRecord& record) {
  return std::string(operation_name(record.operation)) + " (op " + std::to_string(record.id) + ")";
}

// [any-thread] vc_op.complete
void VC_CALL op_complete(const vc_op* op, vc_status status, const char* json, size_t json_len,
                         const char* message, size_t message_len) {
  OpRecord* record = record_of(op);
  if (record == nullptr) return;
  if (record->completed.exchange(true, std::memory_order_acq_rel)) {
    record->channel->report_misbehaviour(
        describe(*record) + " was completed again (or after the host gave up on it); dropped");
    return;
  }
  PumpEvent event;
  event.kind = PumpEvent::Kind::complete;
  event.op_id = record->id;
  event.status = status;
  if (json != nullptr) event.payload.assign(json, json_len);
  if (message != nullptr) event.message.assign(message, message_len);
  record->channel->pump->post(std::move(event));
}

// [any-thread] Bytes of `len` that fit under the output limit; sets `truncated` when some do not.
uint64_t bytes_within_limit(OpRecord& record, size_t len, bool& truncated) {
  const uint64_t before = record.output_bytes.fetch_add(len, std::memory_order_acq_rel);
  if (record.output_limit == 0) return len;
  if (before >= record.output_limit) {
    truncated = true;
    return 0;
  }
  const uint64_t room = record.output_limit - before;
  if (len <= room) return len;
  truncated = true;
  return room;
}

// [any-thread] vc_op.emit. Output past OpCallbacks.output_limit is cut exactly at the limit:
// the first `output_limit` bytes of combined stdout+stderr are delivered, the rest is dropped
// and answered with VC_NOTE_TRUNCATED. Reaching the limit exactly is not truncation.
vc_status VC_CALL op_emit(const vc_op* op, vc_stream stream, const uint8_t* data, size_t len) {
  OpRecord* record = record_of(op);
  if (record == nullptr) return VC_E_INVALID_ARGUMENT;
  if (record->completed.load(std::memory_order_acquire)) {
    if (!record->late_emit_reported.exchange(true)) {
      record->channel->report_misbehaviour(describe(*record) +
                                           " emitted after completing; rejected");
    }
    return VC_E_INVALID_ARGUMENT;
  }
  if (!is_known_stream(stream) || (data == nullptr && len > 0)) {
    record->channel->report_misbehaviour(describe(*record) + " emitted to unknown stream " +
                                         std::to_string(stream) + "; rejected");
    return VC_E_INVALID_ARGUMENT;
  }
  if (len == 0) return VC_OK;

  const uint64_t queued = record->queued_bytes.load(std::memory_order_acquire);
  if (queued > 0 && queued + len > record->channel->queue_high_water) {
    record->channel->backpressure_replies.fetch_add(1, std::memory_order_relaxed);
    return VC_E_BACKPRESSURE;  // not taken: the plugin retries later
  }

  bool truncated = false;
  const uint64_t taken =
      is_output_stream(stream) ? bytes_within_limit(*record, len, truncated) : len;
  if (taken > 0) {
    PumpEvent event;
    event.kind = PumpEvent::Kind::emit;
    event.op_id = record->id;
    event.stream = stream;
    event.payload.assign(reinterpret_cast<const char*>(data), taken);
    record->queued_bytes.fetch_add(taken, std::memory_order_acq_rel);
    if (!record->channel->pump->post(std::move(event))) {
      record->queued_bytes.fetch_sub(taken, std::memory_order_acq_rel);
    }
  }
  return truncated ? VC_NOTE_TRUNCATED : VC_OK;
}

// [any-thread] vc_op.is_cancelled
int32_t VC_CALL op_is_cancelled(const vc_op* op) {
  const OpRecord* record = record_of(op);
  return record != nullptr && record->cancel_requested.load(std::memory_order_acquire) ? 1 : 0;
}

}  // namespace

void OpChannel::report_misbehaviour(const std::string& what) {
  misbehaviours.fetch_add(1, std::memory_order_relaxed);
  try {
    services->logger().warn("plugin misbehaving: the {} backend's {}", backend_name, what);
  } catch (...) {
    // Called from plugin threads through the C ABI: nothing may escape.
  }
}

OpRecord::OpRecord(uint64_t op_id, Operation op_operation, OpCallbacks op_callbacks,
                   std::shared_ptr<OpChannel> op_channel)
    : id(op_id),
      operation(op_operation),
      output_limit(op_callbacks.output_limit),
      channel(std::move(op_channel)),
      callbacks(std::move(op_callbacks)) {
  abi.struct_size = sizeof abi;
  abi.host_ctx = this;
  abi.id = id;
  abi.complete = &op_complete;
  abi.emit = &op_emit;
  abi.is_cancelled = &op_is_cancelled;
}

bool OpRecord::complete_from_host(const Failure& failure) {
  if (completed.exchange(true, std::memory_order_acq_rel)) return false;
  PumpEvent event;
  event.kind = PumpEvent::Kind::complete;
  event.op_id = id;
  event.status = failure.status;
  event.message = failure.message;
  event.from_host = true;
  return channel->pump->post(std::move(event));
}

}  // namespace vc::backend_proxy
