/* checkpoints_plugin.c — a backend built from the frozen ABI 1.2 headers (frozen/1.2) whose only
 * operations are the checkpoints extension's (ext/vc_backend_checkpoints.h), for the host's
 * reading of the extension table. Built three times:
 *   (default)                 the whole table; each op completes at once with a canned result
 *   CHECKPOINTS_NULL_SLOT     fork_checkpoint left NULL
 *   CHECKPOINTS_SHORT_TABLE   a struct_size that ends before delete_checkpoint
 * The canned results: list_checkpoints {"computer_id":"c","checkpoints":[]}; create, restore
 * {"checkpoint":{...},"computer":{...}} for the name "kept"; delete {"computer_id":"c",
 * "name":"kept","deleted":true}; fork VC_E_NOT_FOUND "No checkpoint named ...". Nothing else is
 * implemented. Every function runs on the host's loop thread.
 */
#include <vc-backend-1/vc_sdk.h>

#include <stddef.h>
#include <string.h>

static void complete_text(const vc_op *op, vc_status status, const char *json,
                          const char *message) {
  op->complete(op, status, json, json != NULL ? strlen(json) : 0, message,
               message != NULL ? strlen(message) : 0);
}

#define CHECKPOINT_INFO                                                                     \
  "{\"name\":\"kept\",\"computer_id\":\"c\",\"created\":\"2026-12-07T00:00:00.000Z\","     \
  "\"size_bytes\":1,\"processes\":false,\"desktop_environment\":false}"
#define COMPUTER_INFO                                                                       \
  "{\"computer_id\":\"c\",\"sandbox_id\":\"0123456789ab\",\"state\":\"running\","          \
  "\"temporary\":false,\"image\":\"test\",\"created_at\":\"2026-12-07T00:00:00Z\","        \
  "\"network_access\":true,\"desktop_environment\":false,\"desktop_url\":null}"

static vc_status VC_CALL validate(vc_backend *self, const char *json, size_t len,
                                  const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"engine\":\"checkpoints\"}", NULL);
  return VC_OK;
}

static vc_status VC_CALL with_checkpoint(vc_backend *self, const char *json, size_t len,
                                         const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"checkpoint\":" CHECKPOINT_INFO ",\"computer\":" COMPUTER_INFO "}",
                NULL);
  return VC_OK;
}

static vc_status VC_CALL list_checkpoints(vc_backend *self, const char *json, size_t len,
                                          const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"computer_id\":\"c\",\"checkpoints\":[" CHECKPOINT_INFO "]}", NULL);
  return VC_OK;
}

#ifndef CHECKPOINTS_NULL_SLOT
static vc_status VC_CALL fork_checkpoint(vc_backend *self, const char *json, size_t len,
                                         const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_E_NOT_FOUND, NULL, "No checkpoint named that.");
  return VC_OK;
}
#endif

static vc_status VC_CALL delete_checkpoint(vc_backend *self, const char *json, size_t len,
                                           const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"computer_id\":\"c\",\"name\":\"kept\",\"deleted\":true}", NULL);
  return VC_OK;
}

static const vc_backend_checkpoints g_checkpoints = {
#ifdef CHECKPOINTS_SHORT_TABLE
    .struct_size = offsetof(vc_backend_checkpoints, delete_checkpoint),
#else
    .struct_size = sizeof(vc_backend_checkpoints),
#endif
    .create_checkpoint = with_checkpoint,
    .list_checkpoints = list_checkpoints,
    .restore_checkpoint = with_checkpoint,
#ifndef CHECKPOINTS_NULL_SLOT
    .fork_checkpoint = fork_checkpoint,
#endif
    .delete_checkpoint = delete_checkpoint,
};

static const void *VC_CALL get_extension(vc_backend *self, const char *id) {
  (void)self;
  return id != NULL && strcmp(id, VC_EXT_BACKEND_CHECKPOINTS) == 0 ? &g_checkpoints : NULL;
}

static void VC_CALL cancel(vc_backend *self, const vc_op *op) { (void)self, (void)op; }
static void VC_CALL destroy(vc_backend *self) { (void)self; }

static const vc_backend_ops g_ops = {
    .struct_size = sizeof(vc_backend_ops),
    .destroy = destroy,
    .cancel = cancel,
    .get_extension = get_extension,
    .validate = validate,
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
  *out_backend = &g_backend;
  return VC_OK;
}

static const vc_plugin_descriptor g_descriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 2,
    .id = "org.example.checkpoints",
    .name = "checkpoints",
    .version = "1.2.0",
    .vendor = "mcp-virtual-computer tests",
    .description = "Offers the checkpoints extension with canned answers (tests only).",
    .capabilities = 0,
    .options = NULL,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  (void)host;
  return &g_descriptor;
}
