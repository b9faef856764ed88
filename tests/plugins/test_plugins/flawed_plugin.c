/* flawed_plugin.c — a backend that loads cleanly and answers every operation, but breaks the
 * op contract in ways `validate-plugin` must name. Built from the frozen 1.0 SDK headers; it
 * runs no command, it only recognises the validator's commands by their text.
 *
 *   validate, create, list, remove   correct (one in-memory computer)
 *   attach               correct, but sleeps 1.5 s in the call, blocking the host's loop thread
 *   exec "exit 0"        completes twice
 *   exec "exit 3"        reports exit code 0
 *   exec printf ...      the stdout bytes, but nothing on stderr
 *   exec "sleep 60"      with a short timeout_ms: reports "exited" (no timeout enforced);
 *                        otherwise (the cancel check) never completes and ignores cancel
 *   exec "while ..."     emits past the output limit and reports "exited"
 *   exec "cat"           completes with a result that is not JSON
 *   anything else        exit code 0
 *   restart              declared (VC_CAP_RESTART) but its slot is NULL
 */
#define _POSIX_C_SOURCE 200809L

#include <vc-backend-1/vc_sdk.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char g_computer[64];
static int g_exists;

static void finish(const vc_op *op, vc_status status, const char *json) {
  op->complete(op, status, json, json ? strlen(json) : 0, NULL, 0);
}

/* The value of "computer_id" in a request the host serialised without spaces. */
static void read_computer_id(const char *json, size_t len, char *out, size_t cap) {
  const char *key = "\"computer_id\":\"";
  out[0] = '\0';
  char *copy = malloc(len + 1);
  if (copy == NULL) return;
  memcpy(copy, json, len);
  copy[len] = '\0';
  const char *at = strstr(copy, key);
  if (at != NULL) {
    at += strlen(key);
    size_t n = strcspn(at, "\"");
    if (n < cap) {
      memcpy(out, at, n);
      out[n] = '\0';
    }
  }
  free(copy);
}

static int request_has(const char *json, size_t len, const char *text) {
  size_t n = strlen(text);
  for (size_t i = 0; i + n <= len; ++i) {
    if (memcmp(json + i, text, n) == 0) return 1;
  }
  return 0;
}

static void computer_info(char *out, size_t cap) {
  snprintf(out, cap, "{\"computer_id\":\"%s\",\"sandbox_id\":\"%s\",\"state\":\"running\"}",
           g_computer, g_computer);
}

static vc_status VC_CALL validate(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self, (void)json, (void)len;
  finish(op, VC_OK, "{\"engine\":\"flawed\"}");
  return VC_OK;
}

static vc_status VC_CALL create(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self;
  char info[256];
  read_computer_id(json, len, g_computer, sizeof g_computer);
  g_exists = 1;
  computer_info(info, sizeof info);
  finish(op, VC_OK, info);
  return VC_OK;
}

static vc_status VC_CALL attach(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self, (void)json, (void)len;
  const struct timespec blocking = {1, 500000000}; /* the violation: work done in the call */
  nanosleep(&blocking, NULL);
  char info[256];
  computer_info(info, sizeof info);
  finish(op, g_exists ? VC_OK : VC_E_NOT_FOUND, g_exists ? info : NULL);
  return VC_OK;
}

static vc_status VC_CALL list(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self, (void)json, (void)len;
  char info[256], listing[320];
  computer_info(info, sizeof info);
  snprintf(listing, sizeof listing, "{\"computers\":[%s]}", g_exists ? info : "");
  finish(op, VC_OK, listing);
  return VC_OK;
}

static vc_status VC_CALL remove_computer(vc_backend *self, const char *json, size_t len,
                                         const vc_op *op) {
  (void)self, (void)json, (void)len;
  char result[160];
  snprintf(result, sizeof result, "{\"computer_id\":\"%s\",\"removed\":%s}", g_computer,
           g_exists ? "true" : "false");
  g_exists = 0;
  finish(op, VC_OK, result);
  return VC_OK;
}

static vc_status VC_CALL exec(vc_backend *self, const char *json, size_t len,
                              const uint8_t *stdin_data, size_t stdin_len, const vc_op *op) {
  (void)self, (void)stdin_data, (void)stdin_len;
  const char *exited = "{\"exit_code\":0,\"outcome\":\"exited\"}";
  if (request_has(json, len, "\"command\":\"exit 0\"")) {
    finish(op, VC_OK, exited);
    finish(op, VC_OK, exited); /* the violation: a second completion */
  } else if (request_has(json, len, "\"command\":\"exit 3\"")) {
    finish(op, VC_OK, exited); /* the violation: the wrong exit code */
  } else if (request_has(json, len, "\"command\":\"printf")) {
    static const uint8_t out[] = "vc-out:\001\377:end\n";
    op->emit(op, VC_STREAM_STDOUT, out, sizeof out - 1); /* stderr never comes */
    finish(op, VC_OK, exited);
  } else if (request_has(json, len, "\"command\":\"sleep 60\"")) {
    if (request_has(json, len, "\"timeout_ms\":1000")) finish(op, VC_OK, exited);
    /* else: the cancel check's command, never completed */
  } else if (request_has(json, len, "\"command\":\"while")) {
    static const uint8_t line[] = "0123456789abcdef0123456789abcdef\n";
    for (int i = 0; i < 1000; ++i) op->emit(op, VC_STREAM_STDOUT, line, sizeof line - 1);
    finish(op, VC_OK, exited);
  } else if (request_has(json, len, "\"command\":\"cat\"")) {
    finish(op, VC_OK, "this is not JSON");
  } else {
    finish(op, VC_OK, exited);
  }
  return VC_OK;
}

/* Cancel is accepted and ignored: the cancelled exec never completes. */
static void VC_CALL cancel(vc_backend *self, const vc_op *op) { (void)self, (void)op; }

static void VC_CALL destroy(vc_backend *self) { (void)self; }

static const vc_backend_ops kOps = {
    .struct_size = sizeof(vc_backend_ops),
    .destroy = destroy,
    .cancel = cancel,
    .validate = validate,
    .create = create,
    .attach = attach,
    .list = list,
    .remove = remove_computer,
    .exec = exec,
    /* .restart left NULL although VC_CAP_RESTART is declared */
};

static vc_backend g_backend = {sizeof(vc_backend), 0, NULL, &kOps};

static vc_status VC_CALL create_backend(const vc_host_services *host, const char *config_json,
                                        size_t config_len, vc_backend **out_backend, char *errbuf,
                                        size_t errbuf_cap) {
  (void)host, (void)config_json, (void)config_len, (void)errbuf, (void)errbuf_cap;
  g_exists = 0;
  *out_backend = &g_backend;
  return VC_OK;
}

static const vc_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,
    .id = "org.mcp-virtual-computer.test.flawed",
    .name = "flawed",
    .version = "1.0.0",
    .vendor = "mcp-virtual-computer tests",
    .description = "Test backend that breaks the op contract on purpose",
    .capabilities = VC_CAP_RESTART | VC_CAP_EXEC_STDIN,
    .options = NULL,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  (void)host;
  return &kDescriptor;
}
