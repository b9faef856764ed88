/* vc_op.h — one accepted asynchronous operation, as the plugin sees it.
 *
 * The host creates a vc_op for every operation it starts and passes it to the op function.
 * Contract (the same for every operation):
 *  - The op function returns VC_OK  => exactly one op->complete() follows, from any thread,
 *    possibly before the op function returns.
 *  - The op function returns an error => the op was rejected; complete() must never be called.
 *  - All emit() calls of an op happen-before its complete().
 *  - After complete() the plugin must not touch the op again. The vc_op pointer stays valid
 *    until the host has processed the completion; a late ops->cancel() for it is harmless.
 *  - The host never re-enters the plugin from complete(), emit() or is_cancelled(): their
 *    effects are queued and handled on a later turn of the host's loop.
 *  - Every buffer passed in either direction is borrowed for the duration of the call; the
 *    receiver copies what it keeps. Nothing is freed across the boundary.
 */
#ifndef VC_BACKEND_1_OP_H
#define VC_BACKEND_1_OP_H

#include "vc_abi.h"
#include "vc_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which stream an emit() belongs to. */
typedef uint32_t vc_stream;
#define VC_STREAM_STDOUT 1u   /* exec: raw stdout bytes */
#define VC_STREAM_STDERR 2u   /* exec: raw stderr bytes */
#define VC_STREAM_PROGRESS 3u /* any op: one JSON object {"progress":n,"total":n?,"message":s?} */

typedef struct vc_op vc_op;
struct vc_op {
  uint32_t struct_size;
  uint32_t reserved0;
  void *host_ctx; /* the host's per-op data; opaque to the plugin */

  /* [any-thread] Exactly once per accepted op.
   * On success (status >= 0) `json` is the op's result document (see the SDK's schemas).
   * On failure (status < 0) `json` is an optional details object (may be NULL / 0 length),
   * e.g. {"code":"docker.image_not_found","retryable":false}, and `message` is a short,
   * actionable, human-readable sentence. Buffers need not be NUL-terminated. */
  void(VC_CALL *complete)(const vc_op *op, vc_status status, const char *json, size_t json_len,
                          const char *message, size_t message_len);

  /* [any-thread] Streams bytes belonging to this op. Never blocks. Returns
   *   VC_OK              accepted;
   *   VC_NOTE_TRUNCATED  the host's output limit has been reached: stop producing output
   *                      (for exec: end the command and complete with "output_limit_exceeded");
   *   VC_E_BACKPRESSURE  the host's buffer is full: the bytes were NOT taken, retry later;
   *   VC_E_INVALID_ARGUMENT  after complete(), or an unknown stream. */
  vc_status(VC_CALL *emit)(const vc_op *op, vc_stream stream, const uint8_t *data, size_t len);

  /* [any-thread] Nonzero once the host has asked for this op to be cancelled. An atomic read,
   * for plugin loops that cannot be interrupted through vc_backend_ops.cancel(). */
  int32_t(VC_CALL *is_cancelled)(const vc_op *op);

  /* 1.x additions strictly below. */
};

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_OP_H */
