/* vc_backend.h — a backend instance and its operations table.
 *
 * A backend turns "computers" (persistent, named Linux environments identified by a
 * computer_id slug) into engine objects: a container, a VM, a directory. The host addresses
 * every computer by computer_id; the plugin chooses how to name it in its engine.
 *
 * Every operation takes a UTF-8 JSON request document and completes with a UTF-8 JSON result
 * document. Their JSON Schemas ship with the SDK (share/vc-backend-1/schemas/<op>.request.json
 * and <op>.result.json). Readers ignore unknown fields. Identifiers are strings; field names
 * are snake_case.
 *
 * A "computer info" document (schemas/computer_info.json) describes one computer:
 *   {"computer_id","sandbox_id","state","temporary","image","created_at",
 *    "network_access","desktop_environment","desktop_url"}
 */
#ifndef VC_BACKEND_1_BACKEND_H
#define VC_BACKEND_1_BACKEND_H

#include "vc_abi.h"
#include "vc_op.h"
#include "vc_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Capability bits a plugin advertises in its descriptor. Unknown bits are ignored. */
typedef uint64_t vc_caps;
#define VC_CAP_ISOLATED (UINT64_C(1) << 0)           /* commands cannot touch the host: a sandbox */
#define VC_CAP_PERSISTENT (UINT64_C(1) << 1)         /* computers survive a host restart */
#define VC_CAP_RESTART (UINT64_C(1) << 2)            /* restart keeps the filesystem */
#define VC_CAP_FACTORY_RESET (UINT64_C(1) << 3)
#define VC_CAP_NETWORK_ACCESS (UINT64_C(1) << 4)     /* set_network_access really cuts the network */
#define VC_CAP_DESKTOP (UINT64_C(1) << 5)            /* get/set_desktop_environment */
#define VC_CAP_EXEC_STDIN (UINT64_C(1) << 6)         /* exec accepts stdin bytes */
#define VC_CAP_WAIT_FOR_DEATH (UINT64_C(1) << 7)
#define VC_CAP_KILLS_PROCESS_TREE (UINT64_C(1) << 8) /* timeout/limit kill the whole process group */
#define VC_CAP_IMAGES (UINT64_C(1) << 9)             /* ensure_image does real work */

typedef struct vc_backend vc_backend;

/* Signature shared by every asynchronous operation. [loop-thread], must not block (budget:
 * about a millisecond; do engine I/O on your own threads or non-blocking sockets).
 *   VC_OK  => exactly one op->complete() follows (any thread, possibly before return).
 *   error  => rejected; op->complete() must not be called. Deprecated since 1.1 (see vc_op.h):
 *             the user reads only a generic sentence naming the backend, the op and the
 *             status. Refuse a malformed or impossible request by calling op->complete() with
 *             the error and an actionable message, then returning VC_OK.
 * `request_json` is borrowed for the call. */
typedef vc_status(VC_CALL *vc_async_op_fn)(vc_backend *self, const char *request_json,
                                           size_t request_len, const vc_op *op);

/* exec additionally receives the command's standard input, borrowed for the call. With
 * stdin_len == 0 the command must see EOF on stdin immediately. */
typedef vc_status(VC_CALL *vc_exec_fn)(vc_backend *self, const char *request_json,
                                       size_t request_len, const uint8_t *stdin_data,
                                       size_t stdin_len, const vc_op *op);

typedef struct vc_backend_ops {
  uint32_t struct_size;
  uint32_t reserved0;

  /* [loop-thread] Called once, when no op of this instance is pending. Joins every plugin
   * thread and releases everything; no vc_op or vc_host_services call may follow. */
  void(VC_CALL *destroy)(vc_backend *self);

  /* [loop-thread] Asks a pending op to stop promptly. Idempotent; harmless for an op that
   * already completed. The op still completes exactly once: VC_E_CANCELLED, or its real
   * result if that won the race. For exec, cancel kills the running command. */
  void(VC_CALL *cancel)(vc_backend *self, const vc_op *op);

  /* [any-thread] Optional backend interface by versioned id; NULL when absent. */
  const void *(VC_CALL *get_extension)(vc_backend *self, const char *id);

  /* Operations. A NULL slot means VC_E_UNSUPPORTED. Request -> result documents: */

  /* {} -> {"engine","engine_version"?,"address"?}. Probes the engine once; failure is
   * VC_E_UNAVAILABLE with an actionable message ("Cannot connect to ... Is ... running?"). */
  vc_async_op_fn validate;
  /* {"image"?} -> {"image","action":"present"|"pulled"|"built"}. Emits VC_STREAM_PROGRESS. */
  vc_async_op_fn ensure_image;
  /* {"computer_id","temporary","network_access","desktop_environment","workspace_directory",
   *  "shell","image"?,"resources"?:{"cpus"?,"memory"?,"pids_limit"?},"adopt_existing"?}
   * -> computer info.
   * Creates and starts the computer and waits until it runs commands. VC_E_ALREADY_EXISTS when
   * its name is taken by something this backend does not own, and when a computer of this
   * backend with that id exists already, unless "adopt_existing" (1.1; absent means false) is
   * true: then that computer is adopted exactly as attach does it (started if stopped, given
   * the requested network_access) and its info is the result. A 1.0 plugin ignores the field;
   * a host that sets it falls back to attach when such a plugin answers VC_E_ALREADY_EXISTS. */
  vc_async_op_fn create;
  /* {"computer_id","network_access","desktop_environment","shell"} -> computer info.
   * Adopts an existing computer, starting it if stopped, and applies the given network state.
   * VC_E_NOT_FOUND when no such computer exists. */
  vc_async_op_fn attach;
  /* {} -> {"computers":[computer info...]} (this backend's computers only). */
  vc_async_op_fn list;
  /* {"computer_id"} -> computer info. The filesystem is kept. */
  vc_async_op_fn restart;
  /* {"computer_id"} -> {"computer_id","removed":bool}. Idempotent: removed=false when absent. */
  vc_async_op_fn remove;
  /* {"computer_id"} -> computer info. Same id, image, network and desktop settings; a fresh
   * filesystem. */
  vc_async_op_fn factory_reset;
  /* {"computer_id","enabled"} -> computer info. */
  vc_async_op_fn set_network_access;
  /* {"computer_id"} -> {"enabled","desktop_url"} (the live state). */
  vc_async_op_fn get_desktop_environment;
  /* {"computer_id","enabled"} -> computer info. */
  vc_async_op_fn set_desktop_environment;
  /* {"computer_id","command"|"argv","shell"?,"working_directory"?,"timeout_ms","output_limit"}
   * -> {"exit_code","outcome":"exited"|"timed_out"|"output_limit_exceeded","duration_ms"}.
   * stdout/stderr are emitted as raw bytes. On timeout or when the combined output exceeds
   * output_limit (or emit() returns VC_NOTE_TRUNCATED) the command is killed and the outcome
   * says why. Execs on one computer run one at a time, in call order. VC_E_COMPUTER_DIED when
   * the computer stopped unexpectedly during the command. */
  vc_exec_fn exec;
  /* {"computer_id"} -> {"exit_code"?,"reason"}. Completes when the computer stops without
   * having been asked to; a stop requested through this backend is not a death. */
  vc_async_op_fn wait_for_death;
  /* {"shell","default_timeout_s"} -> {"instructions": string|null}. Text describing the
   * computer to the model; null when the backend cannot describe it (e.g. a custom image). */
  vc_async_op_fn tool_instructions;

  /* 1.x additions strictly below. */
} vc_backend_ops;

/* Returned by create_backend; owned by the plugin; valid until ops->destroy() returns. */
struct vc_backend {
  uint32_t struct_size;
  uint32_t reserved0;
  void *plugin_ctx;          /* the plugin's instance data */
  const vc_backend_ops *ops; /* valid until destroy() */
};

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_BACKEND_H */
