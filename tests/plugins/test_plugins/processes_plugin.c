/* processes_plugin.c — a backend built from the current SDK headers (ABI 1.3) whose only
 * operations are the processes extension's (ext/vc_backend_processes.h), for the host's reading
 * of the extension table. Built three times:
 *   (default)                 the whole table; each op completes at once with a canned result
 *   PROCESSES_NULL_SLOT       write_process left NULL
 *   PROCESSES_SHORT_TABLE     a struct_size that ends before list_processes
 * The canned results, for the one process "p1" of computer "c": start, read and write
 * {"process": running p1, "output": {"stdout": "hello\n", ...}}; kill {"process": p1 ended by
 * TERM, "output": empty}; list {"computer_id":"c","processes":[running p1]}. A read, write or
 * kill of any other process_id answers VC_E_NOT_FOUND "No process with that id in computer c."
 * — the request is only searched for the bytes "process_id":"p1", nothing else is parsed.
 * Every function runs on the host's loop thread.
 */
#include <vc-backend-1/vc_sdk.h>

#include <stddef.h>
#include <string.h>

static void complete_text(const vc_op *op, vc_status status, const char *json,
                          const char *message) {
  op->complete(op, status, json, json != NULL ? strlen(json) : 0, message,
               message != NULL ? strlen(message) : 0);
}

#define PROCESS_FIELDS                                                                      \
  "\"process_id\":\"p1\",\"command\":\"echo hello; sleep 100\","                            \
  "\"argv\":[\"/bin/sh\",\"-c\",\"echo hello; sleep 100\"],\"working_directory\":\"/work\","\
  "\"pty\":false,\"pid\":42,\"started\":\"2026-12-07T00:00:00.000Z\","                      \
  "\"log_paths\":{\"stdout\":\"/tmp/p1.out\",\"stderr\":\"/tmp/p1.err\"}"
#define RUNNING_PROCESS                                                                     \
  "{" PROCESS_FIELDS ",\"state\":\"running\",\"exit_code\":null,\"signal\":null,"           \
  "\"ended\":null}"
#define TERMINATED_PROCESS                                                                  \
  "{" PROCESS_FIELDS ",\"state\":\"exited\",\"exit_code\":143,\"signal\":\"TERM\","         \
  "\"ended\":\"2026-12-07T00:00:01.000Z\"}"
#define HELLO_OUTPUT                                                                        \
  "{\"stdout\":\"hello\\n\",\"stderr\":\"\",\"stdout_dropped\":0,\"stderr_dropped\":0,"     \
  "\"stdout_offset\":6,\"stderr_offset\":0,\"more\":false}"
#define NO_OUTPUT                                                                           \
  "{\"stdout\":\"\",\"stderr\":\"\",\"stdout_dropped\":0,\"stderr_dropped\":0,"             \
  "\"stdout_offset\":6,\"stderr_offset\":0,\"more\":false}"

/* Whether the request names the process p1 (the bytes "process_id":"p1", as the host writes
 * them). */
static int names_p1(const char *json, size_t len) {
  static const char kNeedle[] = "\"process_id\":\"p1\"";
  const size_t needle_len = sizeof(kNeedle) - 1;
  if (json == NULL || len < needle_len) return 0;
  for (size_t at = 0; at + needle_len <= len; ++at) {
    if (memcmp(json + at, kNeedle, needle_len) == 0) return 1;
  }
  return 0;
}

static vc_status VC_CALL validate(vc_backend *self, const char *json, size_t len,
                                  const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"engine\":\"processes\"}", NULL);
  return VC_OK;
}

static vc_status VC_CALL start_process(vc_backend *self, const char *json, size_t len,
                                       const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"process\":" RUNNING_PROCESS ",\"output\":" HELLO_OUTPUT "}", NULL);
  return VC_OK;
}

/* read_process, and write_process unless PROCESSES_NULL_SLOT. */
static vc_status VC_CALL read_process(vc_backend *self, const char *json, size_t len,
                                      const vc_op *op) {
  (void)self;
  if (!names_p1(json, len)) {
    complete_text(op, VC_E_NOT_FOUND, NULL, "No process with that id in computer c.");
    return VC_OK;
  }
  complete_text(op, VC_OK, "{\"process\":" RUNNING_PROCESS ",\"output\":" HELLO_OUTPUT "}", NULL);
  return VC_OK;
}

static vc_status VC_CALL kill_process(vc_backend *self, const char *json, size_t len,
                                      const vc_op *op) {
  (void)self;
  if (!names_p1(json, len)) {
    complete_text(op, VC_E_NOT_FOUND, NULL, "No process with that id in computer c.");
    return VC_OK;
  }
  complete_text(op, VC_OK, "{\"process\":" TERMINATED_PROCESS ",\"output\":" NO_OUTPUT "}",
                NULL);
  return VC_OK;
}

static vc_status VC_CALL list_processes(vc_backend *self, const char *json, size_t len,
                                        const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete_text(op, VC_OK, "{\"computer_id\":\"c\",\"processes\":[" RUNNING_PROCESS "]}", NULL);
  return VC_OK;
}

static const vc_backend_processes g_processes = {
#ifdef PROCESSES_SHORT_TABLE
    .struct_size = offsetof(vc_backend_processes, list_processes),
#else
    .struct_size = sizeof(vc_backend_processes),
#endif
    .start_process = start_process,
    .read_process = read_process,
#ifndef PROCESSES_NULL_SLOT
    .write_process = read_process,
#endif
    .kill_process = kill_process,
    .list_processes = list_processes,
};

static const void *VC_CALL get_extension(vc_backend *self, const char *id) {
  (void)self;
  return id != NULL && strcmp(id, VC_EXT_BACKEND_PROCESSES) == 0 ? &g_processes : NULL;
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
    .min_host_abi_minor = 3,
    .id = "org.example.processes",
    .name = "processes",
    .version = "1.3.0",
    .vendor = "mcp-virtual-computer tests",
    .description = "Offers the processes extension with canned answers (tests only).",
    .capabilities = 0,
    .options = NULL,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  (void)host;
  return &g_descriptor;
}
