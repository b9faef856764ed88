/* conformance_plugin.c — a backend built from the frozen 1.0 SDK headers whose operations follow
 * a fixed script, so the host's side of the ABI (completion pump, cancellation, emit accounting,
 * services, shutdown) can be tested without a container engine. It is not a real backend.
 *
 * The script, by operation:
 *   validate                 completes synchronously inside the op function
 *   ensure_image             a worker thread emits two progress events, then completes
 *   create                   ignores cancellation; completes once the file named by the
 *                            request's "release_file" exists, then writes "<release_file>.done"
 *   attach, remove,
 *   set_desktop_environment  NULL slots (unsupported)
 *   list                     rejected synchronously with VC_E_BUSY
 *   restart                  inside the op function: emits to an unknown stream, completes,
 *                            completes a second time, emits after completing
 *   factory_reset            completes synchronously with an unknown positive note status (7)
 *   set_network_access       a worker fails: "enabled":true -> VC_E_NOT_FOUND without a message;
 *                            false -> the plugin-private status -10042 "private failure"
 *   get_desktop_environment  completes synchronously with a document that is not JSON
 *   exec                     by "command": "stream" (stdout/stderr chunks from a worker),
 *                            "echo-stdin" (stdin back on stdout), "flood" (emits "flood_bytes"
 *                            bytes in 64 KiB chunks, retrying on backpressure, stopping at
 *                            VC_NOTE_TRUNCATED), "overrun" (emits OVERRUN_BYTES, ignoring
 *                            VC_NOTE_TRUNCATED, then says it exited 0); anything else is
 *                            rejected
 *   wait_for_death           completes VC_E_CANCELLED once ops->cancel was pushed for it AND
 *                            is_cancelled() reports it
 *   tool_instructions        reports what the plugin observed: {"instructions":null,
 *                            "diagnostics":{...},"config":<the create_backend config>}
 */
#define _POSIX_C_SOURCE 200809L

#include <vc-backend-1/vc_sdk.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FLOOD_CHUNK (64u * 1024u)
#define OVERRUN_BYTES (4u * FLOOD_CHUNK)
#define MAX_WAIT_MS 60000

/* ---- what the plugin observed, reported by tool_instructions -------------------------- */

static char g_entry_plugin_path[4096];
static char g_entry_host_name[128];

typedef struct diagnostics {
  atomic_int unknown_stream_status;
  atomic_int late_emit_status;
  atomic_int loop_thread_in_create; /* is_loop_thread() inside create_backend */
  atomic_int loop_thread_on_worker; /* is_loop_thread() on a worker thread (-1 = not run) */
  atomic_int unknown_extension_null;
  atomic_int state_dir_written;
  atomic_int cancel_calls;
} diagnostics;

/* ---- one instance -------------------------------------------------------------------- */

typedef struct job job;

typedef struct conformance_backend {
  vc_backend base;
  const vc_host_services *host;
  const vc_host_thread_check *thread_check;
  char *config;
  pthread_mutex_t mutex; /* guards jobs */
  job *jobs;             /* every job started; freed by destroy after joining */
  diagnostics diag;
} conformance_backend;

typedef void (*job_fn)(job *work);

struct job {
  job *next;
  conformance_backend *backend;
  const vc_op *op;
  job_fn run;
  pthread_t thread;
  atomic_int cancel_pushed;
  char *request;
  unsigned char *stdin_copy;
  size_t stdin_len;
};

static conformance_backend *backend_of(vc_backend *self) {
  return (conformance_backend *)self->plugin_ctx;
}

static void log_line(conformance_backend *backend, vc_log_level level, const char *text) {
  backend->host->log(backend->host, level, text, strlen(text));
}

static void sleep_ms(long ms) {
  struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&pause, NULL);
}

static void complete_text(const vc_op *op, vc_status status, const char *json,
                          const char *message) {
  op->complete(op, status, json, json ? strlen(json) : 0, message, message ? strlen(message) : 0);
}

/* ---- tiny readers for the flat request documents the tests send ------------------------ */

static char *copy_text(const char *data, size_t len) {
  char *text = malloc(len + 1);
  if (text == NULL) return NULL;
  if (len > 0) memcpy(text, data, len);
  text[len] = '\0';
  return text;
}

/* The value text after "key": in `json`, or NULL. */
static const char *find_value(const char *json, const char *key) {
  char pattern[128];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *found = strstr(json, pattern);
  return found ? found + strlen(pattern) : NULL;
}

static int string_value_is(const char *json, const char *key, const char *expected) {
  const char *value = find_value(json, key);
  if (value == NULL || *value != '"') return 0;
  size_t len = strlen(expected);
  return strncmp(value + 1, expected, len) == 0 && value[1 + len] == '"';
}

static void copy_string_value(const char *json, const char *key, char *out, size_t cap) {
  out[0] = '\0';
  const char *value = find_value(json, key);
  if (value == NULL || *value != '"' || cap == 0) return;
  const char *end = strchr(value + 1, '"');
  size_t len = end ? (size_t)(end - value - 1) : 0;
  if (len >= cap) len = cap - 1;
  memcpy(out, value + 1, len);
  out[len] = '\0';
}

static unsigned long long number_value(const char *json, const char *key) {
  const char *value = find_value(json, key);
  return value ? strtoull(value, NULL, 10) : 0;
}

/* ---- worker threads -------------------------------------------------------------------- */

static void *job_main(void *arg) {
  job *work = arg;
  work->run(work);
  return NULL;
}

static vc_status start_job(vc_backend *self, const char *request, size_t request_len,
                           const uint8_t *stdin_data, size_t stdin_len, const vc_op *op,
                           job_fn run) {
  conformance_backend *backend = backend_of(self);
  job *work = calloc(1, sizeof *work);
  if (work == NULL) return VC_E_NO_MEMORY;
  work->backend = backend;
  work->op = op;
  work->run = run;
  atomic_init(&work->cancel_pushed, 0);
  work->request = copy_text(request, request_len);
  if (stdin_len > 0) { /* borrowed for the call: keep a copy */
    work->stdin_copy = malloc(stdin_len);
    memcpy(work->stdin_copy, stdin_data, stdin_len);
    work->stdin_len = stdin_len;
  }
  pthread_mutex_lock(&backend->mutex);
  work->next = backend->jobs;
  backend->jobs = work;
  pthread_mutex_unlock(&backend->mutex);
  if (pthread_create(&work->thread, NULL, job_main, work) != 0) {
    /* The job stays listed (destroy skips threads it never started); the op is rejected. */
    work->run = NULL;
    return VC_E_FAILED;
  }
  return VC_OK;
}

static void ensure_image_job(job *work) {
  const char *first = "{\"progress\":1,\"total\":2,\"message\":\"checking\"}";
  const char *second = "{\"progress\":2,\"total\":2,\"message\":\"present\"}";
  work->op->emit(work->op, VC_STREAM_PROGRESS, (const uint8_t *)first, strlen(first));
  work->op->emit(work->op, VC_STREAM_PROGRESS, (const uint8_t *)second, strlen(second));
  complete_text(work->op, VC_OK, "{\"image\":\"conformance:latest\",\"action\":\"present\"}", NULL);
}

static void create_job(job *work) {
  char release_file[1024];
  copy_string_value(work->request, "release_file", release_file, sizeof release_file);
  for (int waited = 0; waited < MAX_WAIT_MS && access(release_file, F_OK) != 0; waited += 2) {
    sleep_ms(2); /* deliberately ignores cancellation */
  }
  complete_text(work->op, VC_OK,
                "{\"computer_id\":\"stubborn\",\"sandbox_id\":\"s-1\",\"state\":\"running\"}",
                NULL);
  char done_file[1100];
  snprintf(done_file, sizeof done_file, "%s.done", release_file);
  FILE *done = fopen(done_file, "w");
  if (done != NULL) fclose(done);
}

static void set_network_access_job(job *work) {
  const char *enabled = find_value(work->request, "enabled");
  if (enabled != NULL && strncmp(enabled, "true", 4) == 0) {
    complete_text(work->op, VC_E_NOT_FOUND, NULL, NULL);
  } else {
    complete_text(work->op, VC_E_PLUGIN_BASE - 42, "{\"code\":\"conformance.private\"}",
                  "private failure");
  }
}

static void exec_stream_job(job *work) {
  conformance_backend *backend = work->backend;
  const vc_host_services *host = backend->host;
  atomic_store(&backend->diag.loop_thread_on_worker, backend->thread_check->is_loop_thread(host));
  log_line(backend, VC_LOG_DEBUG, "stream exec worker running");
  work->op->emit(work->op, VC_STREAM_STDOUT, (const uint8_t *)"out-1\n", 6);
  work->op->emit(work->op, VC_STREAM_STDERR, (const uint8_t *)"err-1\n", 6);
  work->op->emit(work->op, VC_STREAM_STDOUT, (const uint8_t *)"out-2\n", 6);
  complete_text(work->op, VC_OK, "{\"exit_code\":0,\"outcome\":\"exited\",\"duration_ms\":1}",
                NULL);
}

static void exec_echo_stdin_job(job *work) {
  if (work->stdin_len > 0) {
    work->op->emit(work->op, VC_STREAM_STDOUT, work->stdin_copy, work->stdin_len);
  }
  complete_text(work->op, VC_OK, "{\"exit_code\":0,\"outcome\":\"exited\",\"duration_ms\":1}",
                NULL);
}

static void exec_flood_job(job *work) {
  const unsigned long long wanted = number_value(work->request, "flood_bytes");
  unsigned char *chunk = malloc(FLOOD_CHUNK);
  unsigned long long accepted = 0, backpressure = 0, index = 0;
  int truncated = 0;
  while (chunk != NULL && accepted < wanted && !truncated) {
    size_t len = wanted - accepted < FLOOD_CHUNK ? (size_t)(wanted - accepted) : FLOOD_CHUNK;
    /* Byte k of the stream is (k / FLOOD_CHUNK) & 0xff: the test checks order and loss. */
    memset(chunk, (int)(index & 0xffu), len);
    vc_status status = work->op->emit(work->op, VC_STREAM_STDOUT, chunk, len);
    if (status == VC_E_BACKPRESSURE) {
      ++backpressure;
      sleep_ms(1);
      continue;
    }
    if (status == VC_NOTE_TRUNCATED)
      truncated = 1;
    else if (status != VC_OK)
      break;
    accepted += len;
    ++index;
  }
  free(chunk);
  char result[256];
  snprintf(result, sizeof result,
           "{\"exit_code\":%d,\"outcome\":\"%s\",\"duration_ms\":1,\"offered_bytes\":%llu,"
           "\"backpressure_replies\":%llu}",
           truncated ? 1 : 0, truncated ? "output_limit_exceeded" : "exited", accepted,
           backpressure);
  complete_text(work->op, VC_OK, result, NULL);
}

static void wait_for_death_job(job *work) {
  for (int waited = 0; waited < MAX_WAIT_MS; ++waited) {
    if (atomic_load(&work->cancel_pushed) && work->op->is_cancelled(work->op)) {
      complete_text(work->op, VC_E_CANCELLED, NULL, "wait_for_death cancelled");
      return;
    }
    sleep_ms(1);
  }
  complete_text(work->op, VC_E_TIMEOUT, NULL, "never cancelled");
}

/* ---- operations ------------------------------------------------------------------------- */

static vc_status VC_CALL op_validate(vc_backend *self, const char *request, size_t len,
                                     const vc_op *op) {
  (void)self, (void)request, (void)len;
  complete_text(op, VC_OK, "{\"engine\":\"conformance\",\"engine_version\":\"1.0\"}", NULL);
  return VC_OK;
}

static vc_status VC_CALL op_ensure_image(vc_backend *self, const char *request, size_t len,
                                         const vc_op *op) {
  return start_job(self, request, len, NULL, 0, op, ensure_image_job);
}

static vc_status VC_CALL op_create(vc_backend *self, const char *request, size_t len,
                                   const vc_op *op) {
  return start_job(self, request, len, NULL, 0, op, create_job);
}

static vc_status VC_CALL op_list(vc_backend *self, const char *request, size_t len,
                                 const vc_op *op) {
  (void)self, (void)request, (void)len, (void)op;
  return VC_E_BUSY;
}

static vc_status VC_CALL op_restart(vc_backend *self, const char *request, size_t len,
                                    const vc_op *op) {
  (void)request, (void)len;
  conformance_backend *backend = backend_of(self);
  atomic_store(&backend->diag.unknown_stream_status, op->emit(op, 99u, (const uint8_t *)"x", 1));
  complete_text(op, VC_OK, "{\"computer_id\":\"c\",\"sandbox_id\":\"s-1\",\"state\":\"running\"}",
                NULL);
  complete_text(op, VC_E_FAILED, NULL, "second completion");
  atomic_store(&backend->diag.late_emit_status,
               op->emit(op, VC_STREAM_STDOUT, (const uint8_t *)"late", 4));
  return VC_OK;
}

static vc_status VC_CALL op_factory_reset(vc_backend *self, const char *request, size_t len,
                                          const vc_op *op) {
  (void)self, (void)request, (void)len;
  complete_text(op, 7, "{\"computer_id\":\"c\",\"sandbox_id\":\"s-2\",\"state\":\"running\"}",
                NULL);
  return VC_OK;
}

static vc_status VC_CALL op_set_network_access(vc_backend *self, const char *request, size_t len,
                                               const vc_op *op) {
  return start_job(self, request, len, NULL, 0, op, set_network_access_job);
}

static vc_status VC_CALL op_get_desktop_environment(vc_backend *self, const char *request,
                                                    size_t len, const vc_op *op) {
  (void)self, (void)request, (void)len;
  complete_text(op, VC_OK, "{not json", NULL);
  return VC_OK;
}

/* A plugin that lets the command run on past the host's output limit: the host must still
 * report the limit. Byte k is (k / FLOOD_CHUNK) & 0xff, as for the flood. */
static void exec_overrun_job(job *work) {
  unsigned char chunk[FLOOD_CHUNK];
  unsigned index = 0;
  while (index * FLOOD_CHUNK < OVERRUN_BYTES) {
    memset(chunk, (int)(index & 0xffu), sizeof chunk);
    vc_status status = work->op->emit(work->op, VC_STREAM_STDOUT, chunk, sizeof chunk);
    if (status == VC_E_BACKPRESSURE) {
      sleep_ms(1);
      continue;
    }
    ++index;
  }
  complete_text(work->op, VC_OK, "{\"exit_code\":0,\"outcome\":\"exited\",\"duration_ms\":1}",
                NULL);
}

static vc_status VC_CALL op_exec(vc_backend *self, const char *request, size_t len,
                                 const uint8_t *stdin_data, size_t stdin_len, const vc_op *op) {
  char *text = copy_text(request, len);
  job_fn run = NULL;
  if (text != NULL && string_value_is(text, "command", "stream")) run = exec_stream_job;
  if (text != NULL && string_value_is(text, "command", "echo-stdin")) run = exec_echo_stdin_job;
  if (text != NULL && string_value_is(text, "command", "flood")) run = exec_flood_job;
  if (text != NULL && string_value_is(text, "command", "overrun")) run = exec_overrun_job;
  free(text);
  if (run == NULL) return VC_E_INVALID_ARGUMENT;
  return start_job(self, request, len, stdin_data, stdin_len, op, run);
}

static vc_status VC_CALL op_wait_for_death(vc_backend *self, const char *request, size_t len,
                                           const vc_op *op) {
  return start_job(self, request, len, NULL, 0, op, wait_for_death_job);
}

static vc_status VC_CALL op_tool_instructions(vc_backend *self, const char *request, size_t len,
                                              const vc_op *op) {
  (void)request, (void)len;
  conformance_backend *backend = backend_of(self);
  diagnostics *d = &backend->diag;
  size_t cap = strlen(backend->config) + strlen(g_entry_plugin_path) + 1024;
  char *result = malloc(cap);
  if (result == NULL) return VC_E_NO_MEMORY;
  snprintf(result, cap,
           "{\"instructions\":null,\"diagnostics\":{\"unknown_stream_status\":%d,"
           "\"late_emit_status\":%d,\"loop_thread_in_create\":%d,\"loop_thread_on_worker\":%d,"
           "\"unknown_extension_null\":%d,\"state_dir_written\":%d,\"cancel_calls\":%d,"
           "\"entry_plugin_path\":\"%s\",\"entry_host_name\":\"%s\"},\"config\":%s}",
           atomic_load(&d->unknown_stream_status), atomic_load(&d->late_emit_status),
           atomic_load(&d->loop_thread_in_create), atomic_load(&d->loop_thread_on_worker),
           atomic_load(&d->unknown_extension_null), atomic_load(&d->state_dir_written),
           atomic_load(&d->cancel_calls), g_entry_plugin_path, g_entry_host_name, backend->config);
  complete_text(op, VC_OK, result, NULL);
  free(result);
  return VC_OK;
}

static void VC_CALL op_cancel(vc_backend *self, const vc_op *op) {
  conformance_backend *backend = backend_of(self);
  atomic_fetch_add(&backend->diag.cancel_calls, 1);
  pthread_mutex_lock(&backend->mutex);
  for (job *work = backend->jobs; work != NULL; work = work->next) {
    if (work->op == op) atomic_store(&work->cancel_pushed, 1);
  }
  pthread_mutex_unlock(&backend->mutex);
}

static void VC_CALL op_destroy(vc_backend *self) {
  conformance_backend *backend = backend_of(self);
  int joined = 0;
  job *work = backend->jobs;
  while (work != NULL) {
    job *next = work->next;
    if (work->run != NULL) {
      pthread_join(work->thread, NULL);
      ++joined;
    }
    free(work->request);
    free(work->stdin_copy);
    free(work);
    work = next;
  }
  char line[128];
  snprintf(line, sizeof line, "conformance backend destroyed after joining %d thread(s)", joined);
  log_line(backend, VC_LOG_INFO, line);
  pthread_mutex_destroy(&backend->mutex);
  free(backend->config);
  free(backend);
}

static const vc_backend_ops g_ops = {
    .struct_size = sizeof(vc_backend_ops),
    .destroy = op_destroy,
    .cancel = op_cancel,
    .get_extension = NULL,
    .validate = op_validate,
    .ensure_image = op_ensure_image,
    .create = op_create,
    .attach = NULL,
    .list = op_list,
    .restart = op_restart,
    .remove = NULL,
    .factory_reset = op_factory_reset,
    .set_network_access = op_set_network_access,
    .get_desktop_environment = op_get_desktop_environment,
    .set_desktop_environment = NULL,
    .exec = op_exec,
    .wait_for_death = op_wait_for_death,
    .tool_instructions = op_tool_instructions,
};

/* ---- factory, options, descriptor, entry ---------------------------------------------- */

static int write_state_file(const char *state_dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/conformance.state", state_dir);
  FILE *file = fopen(path, "w");
  if (file == NULL) return 0;
  fputs("ok\n", file);
  fclose(file);
  return 1;
}

static vc_status VC_CALL create_backend(const vc_host_services *host, const char *config_json,
                                        size_t config_len, vc_backend **out_backend, char *errbuf,
                                        size_t errbuf_cap) {
  conformance_backend *backend = calloc(1, sizeof *backend);
  if (backend == NULL) {
    snprintf(errbuf, errbuf_cap, "out of memory");
    return VC_E_NO_MEMORY;
  }
  backend->base.struct_size = sizeof backend->base;
  backend->base.plugin_ctx = backend;
  backend->base.ops = &g_ops;
  backend->host = host;
  backend->config = copy_text(config_json, config_len);
  pthread_mutex_init(&backend->mutex, NULL);
  atomic_init(&backend->diag.loop_thread_on_worker, -1);
  backend->thread_check = host->get_extension(host, VC_EXT_HOST_THREAD_CHECK);
  if (backend->thread_check == NULL) {
    snprintf(errbuf, errbuf_cap, "the host lacks %s", VC_EXT_HOST_THREAD_CHECK);
    free(backend->config);
    free(backend);
    return VC_E_INCOMPATIBLE;
  }
  atomic_init(&backend->diag.loop_thread_in_create, backend->thread_check->is_loop_thread(host));
  atomic_init(&backend->diag.unknown_extension_null,
              host->get_extension(host, "vc.host.no-such-extension/1") == NULL);
  atomic_init(&backend->diag.state_dir_written, write_state_file(host->state_dir));
  log_line(backend, VC_LOG_INFO, "conformance backend created");
  *out_backend = &backend->base;
  return VC_OK;
}

static const vc_option_decl g_greeting = {sizeof(vc_option_decl),
                                          VC_OPTION_STRING,
                                          "greeting",
                                          "Text the conformance backend starts with.",
                                          "hello",
                                          "VC_CONFORMANCE_GREETING"};
static const vc_option_decl g_verbose = {
    sizeof(vc_option_decl), VC_OPTION_BOOL, "verbose", "Log more.", "false", NULL};
static const vc_option_decl g_retries = {
    sizeof(vc_option_decl), VC_OPTION_INTEGER, "retries", "How often to retry.", "3", NULL};
static const vc_option_decl g_ratio = {
    sizeof(vc_option_decl), VC_OPTION_NUMBER, "ratio", "A fraction.", "0.5", NULL};
static const vc_option_decl g_tag = {
    sizeof(vc_option_decl), VC_OPTION_STRING_LIST, "tag", "A label; repeatable.", NULL, NULL};
static const vc_option_decl *const g_options[] = {&g_greeting, &g_verbose, &g_retries,
                                                  &g_ratio,    &g_tag,     NULL};

static const vc_plugin_descriptor g_descriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,
    .id = "org.example.conformance",
    .name = "conformance",
    .version = "1.0.0",
    .vendor = "mcp-virtual-computer tests",
    .description = "Scripted backend that exercises the host side of the ABI (tests only).",
    .capabilities = VC_CAP_PERSISTENT | VC_CAP_RESTART | VC_CAP_EXEC_STDIN,
    .options = g_options,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  if (host != NULL && host->plugin_path != NULL) {
    snprintf(g_entry_plugin_path, sizeof g_entry_plugin_path, "%s", host->plugin_path);
  }
  if (host != NULL && host->host_name != NULL) {
    snprintf(g_entry_host_name, sizeof g_entry_host_name, "%s", host->host_name);
  }
  return &g_descriptor;
}
