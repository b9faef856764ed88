/* misbehaving_plugin.c — a backend built from the frozen 1.0 SDK headers whose commands break
 * the rules on purpose, so the host's answer to a plugin that crashes, hangs or completes twice
 * can be tested without a container engine. Apart from those commands it is a correct backend.
 *
 * Operations:
 *   validate            {"engine":"misbehaving"}
 *   ensure_image        {"image":"misbehaving:latest","action":"present"}
 *   attach              VC_E_NOT_FOUND until create ran, then the created computer
 *   create              the computer, running, with the requested network and no desktop
 *   tool_instructions   {"instructions":"A test computer."}
 *   wait_for_death      pending until cancelled (the computer never dies)
 *   everything else     NULL slots (unsupported)
 *
 * exec, by the command's text ("command", or the "argv" elements joined by spaces):
 *   echo <text>           emits "<text>\n" on stdout and exits 0
 *   crash                 writes through a null pointer on a worker thread: a real SIGSEGV
 *                         inside this plugin's code
 *   hang                  never finishes, but honours cancel (completes VC_E_CANCELLED)
 *   hang-ignoring-cancel  never finishes, even when cancelled
 *   twice                 emits "first\n", completes with exit 0, completes again with exit 7,
 *                         then emits "after\n"
 *   anything else         "misbehaving: unknown command" on stderr, exit 127
 * Execs are not queued per computer: each runs at once on a thread of its own, so a command
 * after a hung one still runs. The request's timeout is ignored, which is what makes "hang" a
 * hang.
 */
#define _POSIX_C_SOURCE 200809L

#include <vc-backend-1/vc_sdk.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPUTER_ID_CAP 64
#define COMMAND_CAP 4096

typedef enum command_kind {
  COMMAND_ECHO,
  COMMAND_CRASH,
  COMMAND_HANG,
  COMMAND_HANG_IGNORING_CANCEL,
  COMMAND_TWICE,
  COMMAND_UNKNOWN,
  WAIT_FOR_DEATH
} command_kind;

typedef struct job job;

typedef struct misbehaving_backend {
  vc_backend base;
  const vc_host_services *host;
  pthread_mutex_t mutex; /* guards jobs, stopping and every job's cancelled flag */
  pthread_cond_t changed; /* a job was cancelled, or the instance is being destroyed */
  job *jobs;              /* every job started; freed by destroy after joining */
  int stopping;
  atomic_int created;
  atomic_int network_access;
} misbehaving_backend;

struct job {
  job *next;
  misbehaving_backend *backend;
  const vc_op *op;
  command_kind kind;
  char text[COMMAND_CAP]; /* echo: what to print */
  pthread_t thread;
  int started;
  int cancelled;
};

static misbehaving_backend *backend_of(vc_backend *self) {
  return (misbehaving_backend *)self->plugin_ctx;
}

static void complete_text(const vc_op *op, vc_status status, const char *json,
                          const char *message) {
  op->complete(op, status, json, json ? strlen(json) : 0, message, message ? strlen(message) : 0);
}

static void emit_text(const vc_op *op, vc_stream stream, const char *text) {
  op->emit(op, stream, (const uint8_t *)text, strlen(text));
}

static void complete_exit(const vc_op *op, int exit_code) {
  char result[96];
  snprintf(result, sizeof result, "{\"exit_code\":%d,\"outcome\":\"exited\",\"duration_ms\":0}",
           exit_code);
  complete_text(op, VC_OK, result, NULL);
}

/* ---- reading the request documents ----------------------------------------------------- */

static char *copy_text(const char *data, size_t len) {
  char *text = malloc(len + 1);
  if (text == NULL) return NULL;
  if (len > 0) memcpy(text, data, len);
  text[len] = '\0';
  return text;
}

/* The text after "key": (and any spaces) in `json`, or NULL. The host writes flat documents
 * whose keys never occur inside string values of the fields read here. */
static const char *find_value(const char *json, const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":", key);
  const char *found = strstr(json, pattern);
  if (found == NULL) return NULL;
  found += strlen(pattern);
  while (*found == ' ') ++found;
  return found;
}

/* Decodes the JSON string starting at the quote `value` points to, appending to out[*len]
 * (capacity `cap`, always NUL-terminated). Returns the text after the closing quote, or NULL
 * when `value` is no string. \u escapes outside ASCII become '?': no command here needs them. */
static const char *read_string(const char *value, char *out, size_t *len, size_t cap) {
  if (value == NULL || *value != '"' || cap == 0) return NULL;
  const char *at = value + 1;
  while (*at != '\0' && *at != '"') {
    char c = *at++;
    if (c == '\\' && *at != '\0') {
      char escaped = *at++;
      switch (escaped) {
        case 'n': c = '\n'; break;
        case 't': c = '\t'; break;
        case 'r': c = '\r'; break;
        case 'b': c = '\b'; break;
        case 'f': c = '\f'; break;
        case 'u': {
          unsigned code = 0;
          for (int digit = 0; digit < 4 && *at != '\0'; ++digit, ++at) {
            const char h = *at;
            const int nibble = h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0';
            code = code * 16u + (unsigned)nibble;
          }
          c = code < 0x80u ? (char)code : '?';
          break;
        }
        default: c = escaped; break; /* \" \\ \/ */
      }
    }
    if (*len + 1 < cap) out[(*len)++] = c;
  }
  out[*len] = '\0';
  return *at == '"' ? at + 1 : NULL;
}

static void read_string_field(const char *json, const char *key, char *out, size_t cap) {
  size_t len = 0;
  out[0] = '\0';
  read_string(find_value(json, key), out, &len, cap);
}

/* "command", or the elements of "argv" joined by single spaces. */
static void read_command_text(const char *json, char *out, size_t cap) {
  read_string_field(json, "command", out, cap);
  if (out[0] != '\0') return;
  const char *at = find_value(json, "argv");
  if (at == NULL || *at != '[') return;
  size_t len = 0;
  ++at;
  while (at != NULL) {
    while (*at == ' ' || *at == ',') ++at;
    if (*at != '"') break;
    if (len > 0 && len + 1 < cap) out[len++] = ' ';
    at = read_string(at, out, &len, cap);
  }
}

static int bool_field_is_false(const char *json, const char *key) {
  const char *value = find_value(json, key);
  return value != NULL && strncmp(value, "false", 5) == 0;
}

static void computer_info(misbehaving_backend *backend, const char *computer_id, char *out,
                          size_t cap) {
  snprintf(out, cap,
           "{\"computer_id\":\"%s\",\"sandbox_id\":\"misbehaving-%s\",\"state\":\"running\","
           "\"temporary\":false,\"image\":\"misbehaving:latest\",\"created_at\":null,"
           "\"network_access\":%s,\"desktop_environment\":false,\"desktop_url\":null}",
           computer_id, computer_id, atomic_load(&backend->network_access) ? "true" : "false");
}

/* ---- jobs --------------------------------------------------------------------------------- */

/* Blocks until the job is cancelled (or, with `honour_cancel` 0, until destroy). */
static int wait_for_cancel(job *work, int honour_cancel) {
  misbehaving_backend *backend = work->backend;
  pthread_mutex_lock(&backend->mutex);
  while (!backend->stopping && !(honour_cancel && work->cancelled)) {
    pthread_cond_wait(&backend->changed, &backend->mutex);
  }
  const int cancelled = work->cancelled;
  pthread_mutex_unlock(&backend->mutex);
  return cancelled;
}

/* Opaque to the compiler, so the write below is a real access to address 0 and not a trap
 * instruction it could put in its place. */
static int *volatile g_nowhere = NULL;

/* The sanitizers would report the null write themselves and exit; the point is the signal. */
__attribute__((no_sanitize("address", "undefined"), noinline)) static void write_through_null(void) {
  *g_nowhere = 1;
}

static void *job_main(void *arg) {
  job *work = arg;
  const vc_op *op = work->op;
  switch (work->kind) {
    case COMMAND_ECHO:
      emit_text(op, VC_STREAM_STDOUT, work->text);
      emit_text(op, VC_STREAM_STDOUT, "\n");
      complete_exit(op, 0);
      break;
    case COMMAND_CRASH:
      write_through_null();
      complete_exit(op, 0);
      break;
    case COMMAND_HANG:
    case WAIT_FOR_DEATH:
      /* Ended by destroy instead: nobody is listening any more, so nothing is completed. */
      if (wait_for_cancel(work, 1)) {
        complete_text(op, VC_E_CANCELLED, NULL,
                      work->kind == WAIT_FOR_DEATH ? "Stopped watching the computer."
                                                   : "The command was cancelled.");
      }
      break;
    case COMMAND_HANG_IGNORING_CANCEL:
      wait_for_cancel(work, 0);
      break;
    case COMMAND_TWICE:
      emit_text(op, VC_STREAM_STDOUT, "first\n");
      complete_exit(op, 0);
      complete_exit(op, 7);
      emit_text(op, VC_STREAM_STDOUT, "after\n");
      break;
    case COMMAND_UNKNOWN:
      emit_text(op, VC_STREAM_STDERR, "misbehaving: unknown command\n");
      complete_exit(op, 127);
      break;
  }
  return NULL;
}

static vc_status start_job(misbehaving_backend *backend, const vc_op *op, command_kind kind,
                           const char *text) {
  job *work = calloc(1, sizeof *work);
  if (work == NULL) return VC_E_NO_MEMORY;
  work->backend = backend;
  work->op = op;
  work->kind = kind;
  snprintf(work->text, sizeof work->text, "%s", text);
  pthread_mutex_lock(&backend->mutex);
  work->next = backend->jobs;
  backend->jobs = work;
  work->started = pthread_create(&work->thread, NULL, job_main, work) == 0;
  pthread_mutex_unlock(&backend->mutex);
  return work->started ? VC_OK : VC_E_FAILED;
}

static command_kind command_of(const char *command, const char **echo_text) {
  *echo_text = "";
  if (strncmp(command, "echo ", 5) == 0) {
    *echo_text = command + 5;
    return COMMAND_ECHO;
  }
  if (strcmp(command, "echo") == 0) return COMMAND_ECHO;
  if (strcmp(command, "crash") == 0) return COMMAND_CRASH;
  if (strcmp(command, "hang") == 0) return COMMAND_HANG;
  if (strcmp(command, "hang-ignoring-cancel") == 0) return COMMAND_HANG_IGNORING_CANCEL;
  if (strcmp(command, "twice") == 0) return COMMAND_TWICE;
  return COMMAND_UNKNOWN;
}

/* ---- operations ------------------------------------------------------------------------- */

static vc_status VC_CALL op_validate(vc_backend *self, const char *request, size_t len,
                                     const vc_op *op) {
  (void)self, (void)request, (void)len;
  complete_text(op, VC_OK, "{\"engine\":\"misbehaving\"}", NULL);
  return VC_OK;
}

static vc_status VC_CALL op_ensure_image(vc_backend *self, const char *request, size_t len,
                                         const vc_op *op) {
  (void)self, (void)request, (void)len;
  complete_text(op, VC_OK, "{\"image\":\"misbehaving:latest\",\"action\":\"present\"}", NULL);
  return VC_OK;
}

static vc_status VC_CALL op_attach(vc_backend *self, const char *request, size_t len,
                                   const vc_op *op) {
  misbehaving_backend *backend = backend_of(self);
  char *text = copy_text(request, len);
  if (text == NULL) return VC_E_NO_MEMORY;
  char computer_id[COMPUTER_ID_CAP];
  read_string_field(text, "computer_id", computer_id, sizeof computer_id);
  free(text);
  if (!atomic_load(&backend->created)) {
    char message[160];
    snprintf(message, sizeof message, "Computer '%s' does not exist.", computer_id);
    complete_text(op, VC_E_NOT_FOUND, NULL, message);
    return VC_OK;
  }
  char info[512];
  computer_info(backend, computer_id, info, sizeof info);
  complete_text(op, VC_OK, info, NULL);
  return VC_OK;
}

static vc_status VC_CALL op_create(vc_backend *self, const char *request, size_t len,
                                   const vc_op *op) {
  misbehaving_backend *backend = backend_of(self);
  char *text = copy_text(request, len);
  if (text == NULL) return VC_E_NO_MEMORY;
  char computer_id[COMPUTER_ID_CAP];
  read_string_field(text, "computer_id", computer_id, sizeof computer_id);
  atomic_store(&backend->network_access, !bool_field_is_false(text, "network_access"));
  free(text);
  atomic_store(&backend->created, 1);
  char info[512];
  computer_info(backend, computer_id, info, sizeof info);
  complete_text(op, VC_OK, info, NULL);
  return VC_OK;
}

static vc_status VC_CALL op_exec(vc_backend *self, const char *request, size_t len,
                                 const uint8_t *stdin_data, size_t stdin_len, const vc_op *op) {
  (void)stdin_data, (void)stdin_len;
  char *text = copy_text(request, len);
  if (text == NULL) return VC_E_NO_MEMORY;
  char command[COMMAND_CAP];
  read_command_text(text, command, sizeof command);
  free(text);
  const char *echo_text = NULL;
  const command_kind kind = command_of(command, &echo_text);
  return start_job(backend_of(self), op, kind, echo_text);
}

static vc_status VC_CALL op_wait_for_death(vc_backend *self, const char *request, size_t len,
                                           const vc_op *op) {
  (void)request, (void)len;
  return start_job(backend_of(self), op, WAIT_FOR_DEATH, "");
}

static vc_status VC_CALL op_tool_instructions(vc_backend *self, const char *request, size_t len,
                                              const vc_op *op) {
  (void)self, (void)request, (void)len;
  complete_text(op, VC_OK, "{\"instructions\":\"A test computer.\"}", NULL);
  return VC_OK;
}

static void VC_CALL op_cancel(vc_backend *self, const vc_op *op) {
  misbehaving_backend *backend = backend_of(self);
  pthread_mutex_lock(&backend->mutex);
  for (job *work = backend->jobs; work != NULL; work = work->next) {
    if (work->op == op) work->cancelled = 1;
  }
  pthread_cond_broadcast(&backend->changed);
  pthread_mutex_unlock(&backend->mutex);
}

static void VC_CALL op_destroy(vc_backend *self) {
  misbehaving_backend *backend = backend_of(self);
  pthread_mutex_lock(&backend->mutex);
  backend->stopping = 1;
  pthread_cond_broadcast(&backend->changed);
  job *work = backend->jobs;
  backend->jobs = NULL;
  pthread_mutex_unlock(&backend->mutex);
  while (work != NULL) {
    job *next = work->next;
    if (work->started) pthread_join(work->thread, NULL);
    free(work);
    work = next;
  }
  pthread_cond_destroy(&backend->changed);
  pthread_mutex_destroy(&backend->mutex);
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
    .attach = op_attach,
    .list = NULL,
    .restart = NULL,
    .remove = NULL,
    .factory_reset = NULL,
    .set_network_access = NULL,
    .get_desktop_environment = NULL,
    .set_desktop_environment = NULL,
    .exec = op_exec,
    .wait_for_death = op_wait_for_death,
    .tool_instructions = op_tool_instructions,
};

/* ---- factory, descriptor, entry ------------------------------------------------------------ */

static vc_status VC_CALL create_backend(const vc_host_services *host, const char *config_json,
                                        size_t config_len, vc_backend **out_backend, char *errbuf,
                                        size_t errbuf_cap) {
  (void)config_json, (void)config_len;
  misbehaving_backend *backend = calloc(1, sizeof *backend);
  if (backend == NULL) {
    snprintf(errbuf, errbuf_cap, "out of memory");
    return VC_E_NO_MEMORY;
  }
  backend->base.struct_size = sizeof backend->base;
  backend->base.plugin_ctx = backend;
  backend->base.ops = &g_ops;
  backend->host = host;
  pthread_mutex_init(&backend->mutex, NULL);
  pthread_cond_init(&backend->changed, NULL);
  atomic_init(&backend->created, 0);
  atomic_init(&backend->network_access, 1);
  *out_backend = &backend->base;
  return VC_OK;
}

static const vc_plugin_descriptor g_descriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,
    .id = "org.example.misbehaving",
    .name = "misbehaving",
    .version = "1.0.0",
    .vendor = "mcp-virtual-computer tests",
    .description = "Backend whose commands crash, hang or complete twice (tests only).",
    .capabilities = 0,
    .options = NULL,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  (void)host;
  return &g_descriptor;
}
