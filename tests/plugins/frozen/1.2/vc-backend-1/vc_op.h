/* vc_op.h — one accepted asynchronous operation, as the plugin sees it.
 *
 * The host creates a vc_op for every operation it starts and passes it to the op function.
 * Contract (the same for every operation):
 *  - The op function returns VC_OK  => exactly one op->complete() follows, from any thread,
 *    possibly before the op function returns.
 *  - The op function returns an error => the op was rejected; complete() must never be called.
 *    Deprecated since 1.1: a rejection carries no message, so the user only learns a status.
 *    A 1.1 plugin accepts every op it is given and, to refuse it, calls complete() with the
 *    error and a message before returning VC_OK. Hosts keep accepting rejections from every
 *    plugin, and log a warning once per backend instance for a plugin built for 1.1 or later.
 *  - All emit() calls of an op happen-before its complete().
 *  - After complete() the plugin must not touch the op again. The vc_op pointer stays valid
 *    until the host has processed the completion; a late ops->cancel() for it is harmless.
 *
 * Identity: the address and the id (1.1) promise different things.
 *  - The vc_op address is unique among the ops that are pending, and no further: once the host
 *    has processed an op's completion it may hand the same address to a new op, while a late
 *    ops->cancel() for the old one is still allowed. State keyed by the address must therefore
 *    be dropped no later than the op's complete(), and a cancel must be looked up, never
 *    assumed to belong to the op that had the address before.
 *  - op->id (check VC_HAS_FIELD(op, vc_op, id)) is nonzero and unique for the life of the host
 *    process: never reused, across every backend instance of every plugin. Key bookkeeping
 *    that may outlive complete() (a queued cancel, a log line, a retried engine call) by it.
 *    Against a 1.0 host the field is absent; fall back to the address there.
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

  /* 1.1: nonzero, unique for the life of the host process and never reused (see "Identity"
   * above). Set by the host before the op function is called; constant afterwards. */
  uint64_t id;
};

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_OP_H */
