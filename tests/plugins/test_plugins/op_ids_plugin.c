/* op_ids_plugin.c — a backend built from the current SDK headers (ABI 1.1) that requires a 1.1
 * host (min_host_abi_minor = 1) and keys its bookkeeping by vc_op.id, never by the vc_op
 * address. It is not a real backend; its operations follow a fixed script:
 *   validate        completes at once with {"engine":"op-ids","op_id":<the op's id>}, or with
 *                   VC_E_FAILED when the op has no id, id 0, or an id this instance saw before
 *   wait_for_death  parked in a table keyed by the op's id; only a cancel completes it
 *   create          rejected synchronously with VC_E_BUSY (the form ABI 1.1 deprecates)
 *   everything else NULL (unsupported)
 * ops->cancel looks the op up by its id and completes it VC_E_CANCELLED, "Cancelled by id <n>.".
 * Every function runs on the host's loop thread, so the tables need no lock.
 */
#include <vc-backend-1/vc_sdk.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_SEEN 4096u
#define MAX_PARKED 64u

typedef struct parked_op {
  uint64_t id; /* 0: free slot */
  const vc_op *op;
} parked_op;

static uint64_t g_seen[MAX_SEEN];
static size_t g_seen_count;
static parked_op g_parked[MAX_PARKED];

static void complete_text(const vc_op *op, vc_status status, const char *json,
                          const char *message) {
  op->complete(op, status, json, json != NULL ? strlen(json) : 0, message,
               message != NULL ? strlen(message) : 0);
}

/* [loop-thread] The op's id when it is usable as a key: present, nonzero, never seen. */
static int take_id(const vc_op *op, uint64_t *id, char *why, size_t why_cap) {
  if (!VC_HAS_FIELD(op, vc_op, id)) {
    snprintf(why, why_cap, "The host gave no op id (vc_op.struct_size %" PRIu32 ").",
             op->struct_size);
    return 0;
  }
  if (op->id == 0) {
    snprintf(why, why_cap, "The host gave op id 0.");
    return 0;
  }
  for (size_t i = 0; i < g_seen_count; ++i) {
    if (g_seen[i] == op->id) {
      snprintf(why, why_cap, "The host gave op id %" PRIu64 " twice.", op->id);
      return 0;
    }
  }
  if (g_seen_count < MAX_SEEN) g_seen[g_seen_count++] = op->id;
  *id = op->id;
  return 1;
}

static vc_status VC_CALL validate(vc_backend *self, const char *json, size_t len,
                                  const vc_op *op) {
  (void)self, (void)json, (void)len;
  char text[160];
  uint64_t id = 0;
  if (!take_id(op, &id, text, sizeof text)) {
    complete_text(op, VC_E_FAILED, NULL, text);
    return VC_OK;
  }
  snprintf(text, sizeof text, "{\"engine\":\"op-ids\",\"op_id\":%" PRIu64 "}", id);
  complete_text(op, VC_OK, text, NULL);
  return VC_OK;
}

static vc_status VC_CALL wait_for_death(vc_backend *self, const char *json, size_t len,
                                        const vc_op *op) {
  (void)self, (void)json, (void)len;
  char why[160];
  uint64_t id = 0;
  if (!take_id(op, &id, why, sizeof why)) {
    complete_text(op, VC_E_FAILED, NULL, why);
    return VC_OK;
  }
  for (size_t i = 0; i < MAX_PARKED; ++i) {
    if (g_parked[i].id == 0) {
      g_parked[i].id = id;
      g_parked[i].op = op;
      return VC_OK;
    }
  }
  complete_text(op, VC_E_BUSY, NULL, "Too many ops are waiting.");
  return VC_OK;
}

static vc_status VC_CALL create(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self, (void)json, (void)len, (void)op;
  return VC_E_BUSY;
}

/* Only the id identifies the op: a cancel for an id that is no longer parked finds nothing. */
static void VC_CALL cancel(vc_backend *self, const vc_op *op) {
  (void)self;
  if (!VC_HAS_FIELD(op, vc_op, id) || op->id == 0) return;
  for (size_t i = 0; i < MAX_PARKED; ++i) {
    if (g_parked[i].id == op->id) {
      char message[64];
      const vc_op *parked = g_parked[i].op;
      snprintf(message, sizeof message, "Cancelled by id %" PRIu64 ".", g_parked[i].id);
      g_parked[i].id = 0;
      g_parked[i].op = NULL;
      complete_text(parked, VC_E_CANCELLED, NULL, message);
      return;
    }
  }
}

static void VC_CALL destroy(vc_backend *self) { (void)self; }

static const vc_backend_ops g_ops = {
    .struct_size = sizeof(vc_backend_ops),
    .destroy = destroy,
    .cancel = cancel,
    .validate = validate,
    .create = create,
    .wait_for_death = wait_for_death,
};

static vc_backend g_backend = {
    .struct_size = sizeof(vc_backend),
    .plugin_ctx = NULL,
    .ops = &g_ops,
};

static vc_status VC_CALL create_backend(const vc_host_services *host, const char *config_json,
                                        size_t config_len, vc_backend **out_backend, char *errbuf,
                                        size_t errbuf_cap) {
  (void)host, (void)config_json, (void)config_len, (void)errbuf, (void)errbuf_cap;
  memset(g_parked, 0, sizeof g_parked);
  *out_backend = &g_backend;
  return VC_OK;
}

static const vc_plugin_descriptor g_descriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 1,
    .id = "org.example.op-ids",
    .name = "op-ids",
    .version = "1.1.0",
    .vendor = "mcp-virtual-computer tests",
    .description = "Keys its ops by vc_op.id; needs a host of ABI 1.1 (tests only).",
    .capabilities = VC_CAP_WAIT_FOR_DEATH,
    .options = NULL,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  (void)host;
  return &g_descriptor;
}
