/* minimal_backend.c — a whole backend plugin in C, on the SDK's C headers alone.
 *
 * NOT a sandbox: a computer is a directory, <plugin state dir>/computers/<computer_id>/, and
 * commands run there as ordinary processes of the server's user (`<shell> -c <command>`).
 *
 * Shape: op functions run on the host's loop thread and must not block, so each one checks its
 * request, queues a job and returns VC_OK; one worker thread runs the jobs in call order and
 * completes them. Whoever takes a job off the queue completes its op (the worker, or a cancel
 * of a job still queued), which is what makes every completion happen exactly once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vc-backend-1/vc_sdk.h>

#include "request_fields.h"

extern char **environ;

enum job_kind { JOB_VALIDATE, JOB_CREATE, JOB_ATTACH, JOB_LIST, JOB_REMOVE, JOB_EXEC };

typedef struct job {
  struct job *next;
  const vc_op *op;
  enum job_kind kind;
  char computer_id[64];
  char shell[256];
  char command[65536];
  char working_directory[PATH_MAX];
  int64_t timeout_ms;
  int64_t output_limit; /* checked, then left to the host, which counts it */
  int adopt_existing; /* create: take an existing computer instead of refusing it (ABI 1.1) */
} job;

typedef struct backend {
  vc_backend handle;
  char root[PATH_MAX];
  pthread_t worker;
  pthread_mutex_t mutex;
  pthread_cond_t wake;
  job *head, *tail;       /* queued jobs, guarded by mutex */
  const vc_op *running;   /* the exec being run, guarded by mutex */
  pid_t running_group;
  int running_cancelled;
  int stopping;
} backend;

static void complete(const vc_op *op, vc_status status, const char *json, const char *message) {
  op->complete(op, status, json, json ? strlen(json) : 0, message, message ? strlen(message) : 0);
}

static int valid_computer_id(const char *id) {
  size_t n = strlen(id);
  if (n == 0 || n > 63 || id[0] == '-' || id[n - 1] == '-') return 0;
  for (size_t i = 0; i < n; ++i) {
    if (!((id[i] >= 'a' && id[i] <= 'z') || (id[i] >= '0' && id[i] <= '9') || id[i] == '-')) return 0;
  }
  return 1;
}

static int computer_path(const backend *b, const char *id, char *out, size_t cap) {
  return snprintf(out, cap, "%s/%s", b->root, id) < (int)cap;
}

/* The computer info document; the effective settings: the host's network, no desktop. */
static void computer_info(const char *id, char *out, size_t cap) {
  snprintf(out, cap,
           "{\"computer_id\":\"%s\",\"sandbox_id\":\"%s\",\"state\":\"running\","
           "\"temporary\":false,\"image\":null,\"created_at\":null,\"network_access\":true,"
           "\"desktop_environment\":false,\"desktop_url\":null}", id, id);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

/* Emits everything, waiting while the host's buffer is full; returns the last emit status. */
static vc_status forward(const vc_op *op, vc_stream stream, const char *data, size_t len) {
  vc_status status;
  while ((status = op->emit(op, stream, (const uint8_t *)data, len)) == VC_E_BACKPRESSURE) {
    struct timespec pause = {0, 10 * 1000 * 1000};
    nanosleep(&pause, NULL);
  }
  return status;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for the command's exit until `deadline_ms`; 1 when it exited (reaped), 0 when not. */
static int reap_until(pid_t pid, int *status, int64_t deadline_ms) {
  struct timespec pause = {0, 10 * 1000 * 1000};
  for (;;) {
    pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) return 1;
    if (now_ms() >= deadline_ms) return 0;
    nanosleep(&pause, NULL);
  }
}

static void run_exec(backend *b, job *j) {
  char directory[PATH_MAX], text[PATH_MAX + 64];
  struct stat st;
  if (!computer_path(b, j->computer_id, directory, sizeof directory) || stat(directory, &st) != 0) {
    snprintf(text, sizeof text, "No computer named %s.", j->computer_id);
    complete(j->op, VC_E_NOT_FOUND, NULL, text);
    return;
  }
  if (j->working_directory[0] != '\0') {
    const char *base = j->working_directory[0] == '/' ? "" : directory;
    int fits = snprintf(text, sizeof text, "%s/%s", base, j->working_directory) < (int)sizeof directory;
    if (fits) memcpy(directory, text, strlen(text) + 1);
    if (!fits || stat(directory, &st) != 0 || !S_ISDIR(st.st_mode)) {
      snprintf(text, sizeof text, "Working directory '%s' does not exist.", j->working_directory);
      complete(j->op, VC_E_INVALID_ARGUMENT, NULL, text);
      return;
    }
  }
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    complete(j->op, VC_E_FAILED, NULL, "Cannot create a pipe.");
    return;
  }
  /* Its own process group (a kill reaches everything it started), an empty signal mask and
   * default dispositions (the host may ignore SIGPIPE, and ignored signals survive exec). */
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  sigset_t none, defaults;
  sigemptyset(&none);
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, out[1], 2); /* one stream keeps the example short */
  posix_spawn_file_actions_addchdir_np(&actions, directory);
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  char dash_c[] = "-c";
  char *argv[] = {j->shell, dash_c, j->command, NULL};
  pid_t pid = -1;
  const int64_t started = now_ms(), deadline = started + j->timeout_ms;
  int error = posix_spawn(&pid, j->shell, &actions, &attr, argv, environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (error != 0) {
    close(out[0]);
    snprintf(text, sizeof text, "Cannot run %s: %s.", j->shell, strerror(error));
    complete(j->op, VC_E_FAILED, NULL, text);
    return;
  }
  pthread_mutex_lock(&b->mutex);
  b->running_group = pid; /* a cancel from now on kills the command's whole group */
  int cancelled = b->running_cancelled;
  pthread_mutex_unlock(&b->mutex);
  if (cancelled) kill(-pid, SIGKILL);

  const char *outcome = "exited";
  while (now_ms() < deadline) {
    struct pollfd fd = {out[0], POLLIN, 0};
    int64_t left = deadline - now_ms();
    if (poll(&fd, 1, left > 100 ? 100 : (int)left) <= 0) continue;
    char buffer[8192];
    ssize_t n = read(out[0], buffer, sizeof buffer);
    if (n <= 0) break; /* EOF: the command and its children closed the pipe */
    /* The host counts the output limit: it keeps what fits and says when to stop. */
    if (forward(j->op, VC_STREAM_STDOUT, buffer, (size_t)n) == VC_NOTE_TRUNCATED) {
      outcome = "output_limit_exceeded";
      break;
    }
  }
  close(out[0]);
  int status = 0, reaped = strcmp(outcome, "exited") == 0 && reap_until(pid, &status, deadline);
  if (!reaped && strcmp(outcome, "exited") == 0) outcome = "timed_out";
  pthread_mutex_lock(&b->mutex);
  b->running_group = 0; /* the group id stays ours only until the child is reaped */
  cancelled = b->running_cancelled;
  pthread_mutex_unlock(&b->mutex);
  if (!reaped) {
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (cancelled) {
    complete(j->op, VC_E_CANCELLED, NULL, "The operation was cancelled.");
    return;
  }
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                    : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  snprintf(text, sizeof text, "{\"exit_code\":%d,\"outcome\":\"%s\",\"duration_ms\":%lld}",
           exit_code, outcome, (long long)(now_ms() - started));
  complete(j->op, VC_OK, text, NULL);
}

static void run_job(backend *b, job *j) {
  char path[PATH_MAX], result[1024];
  struct stat st;
  int exists = computer_path(b, j->computer_id, path, sizeof path) && stat(path, &st) == 0;
  switch (j->kind) {
    case JOB_VALIDATE:
      if (mkdir(b->root, 0755) != 0 && errno != EEXIST) {
        snprintf(result, sizeof result, "Cannot create %.900s: %s.", b->root, strerror(errno));
        complete(j->op, VC_E_UNAVAILABLE, NULL, result);
        return;
      }
      complete(j->op, VC_OK, "{\"engine\":\"minimal-c\"}", NULL);
      return;
    case JOB_CREATE:
      if (exists && !j->adopt_existing) {
        snprintf(result, sizeof result, "Computer '%s' already exists.", j->computer_id);
        complete(j->op, VC_E_ALREADY_EXISTS, NULL, result);
        return;
      }
      if (!exists && ((mkdir(b->root, 0755) != 0 && errno != EEXIST) || mkdir(path, 0755) != 0)) {
        snprintf(result, sizeof result, "Cannot create %.900s: %s.", path, strerror(errno));
        complete(j->op, VC_E_FAILED, NULL, result);
        return;
      }
      computer_info(j->computer_id, result, sizeof result);
      complete(j->op, VC_OK, result, NULL);
      return;
    case JOB_ATTACH:
      if (!exists) {
        snprintf(result, sizeof result, "No computer named %s.", j->computer_id);
        complete(j->op, VC_E_NOT_FOUND, NULL, result);
        return;
      }
      computer_info(j->computer_id, result, sizeof result);
      complete(j->op, VC_OK, result, NULL);
      return;
    case JOB_REMOVE:
      if (exists && nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) != 0) {
        snprintf(result, sizeof result, "Cannot remove %.900s: %s.", path, strerror(errno));
        complete(j->op, VC_E_FAILED, NULL, result);
        return;
      }
      snprintf(result, sizeof result, "{\"computer_id\":\"%s\",\"removed\":%s}", j->computer_id,
               exists ? "true" : "false");
      complete(j->op, VC_OK, result, NULL);
      return;
    case JOB_LIST: {
      char list[65536] = "{\"computers\":[";
      DIR *dir = opendir(b->root);
      struct dirent *entry;
      while (dir != NULL && (entry = readdir(dir)) != NULL) {
        if (!valid_computer_id(entry->d_name) || strlen(list) + sizeof result + 3 > sizeof list) continue;
        if (list[strlen(list) - 1] == '}') strcat(list, ",");
        computer_info(entry->d_name, result, sizeof result);
        strcat(list, result);
      }
      if (dir != NULL) closedir(dir);
      strcat(list, "]}");
      complete(j->op, VC_OK, list, NULL);
      return;
    }
    case JOB_EXEC:
      run_exec(b, j);
      return;
  }
}

static void *worker_main(void *arg) {
  backend *b = arg;
  pthread_mutex_lock(&b->mutex);
  for (;;) {
    while (!b->stopping && b->head == NULL) pthread_cond_wait(&b->wake, &b->mutex);
    if (b->stopping) break;
    job *j = b->head;
    b->head = j->next;
    if (b->head == NULL) b->tail = NULL;
    b->running = j->op;
    b->running_cancelled = 0;
    pthread_mutex_unlock(&b->mutex);
    run_job(b, j);
    free(j);
    pthread_mutex_lock(&b->mutex);
    b->running = NULL;
  }
  pthread_mutex_unlock(&b->mutex);
  return NULL;
}

/* [loop-thread] Queues the job; the op function then returns VC_OK. */
static vc_status enqueue(backend *b, job *j) {
  pthread_mutex_lock(&b->mutex);
  if (b->tail != NULL) b->tail->next = j;
  else b->head = j;
  b->tail = j;
  pthread_cond_signal(&b->wake);
  pthread_mutex_unlock(&b->mutex);
  return VC_OK;
}

/* Reads what every job needs; a malformed request completes at once with the reason. */
static job *start_job(const char *json, size_t len, const vc_op *op, enum job_kind kind,
                      const char *operation, int needs_computer) {
  char message[160];
  job *j = calloc(1, sizeof *j);
  if (j == NULL) {
    complete(op, VC_E_NO_MEMORY, NULL, "Out of memory.");
    return NULL;
  }
  j->op = op;
  j->kind = kind;
  if (!needs_computer || (request_string(json, len, "computer_id", j->computer_id,
                                         sizeof j->computer_id) && valid_computer_id(j->computer_id))) {
    return j;
  }
  free(j);
  snprintf(message, sizeof message, "Invalid %s request: computer_id must be 1-63 lowercase "
           "letters, numbers, or hyphens; it must start and end with a letter or number.", operation);
  complete(op, VC_E_INVALID_ARGUMENT, NULL, message);
  return NULL;
}

/* A request this reader cannot walk. Completed with the reason rather than rejected: since ABI
 * 1.1 an op function accepts every op, so that the user reads a message, not a bare status. */
static vc_status not_an_object(const vc_op *op, const char *operation) {
  char message[96];
  snprintf(message, sizeof message, "Invalid %s request: it is not a JSON object.", operation);
  complete(op, VC_E_INVALID_ARGUMENT, NULL, message);
  return VC_OK;
}

/* The op functions whose job needs nothing but (maybe) the computer_id. */
static vc_status queue_job(vc_backend *self, const char *json, size_t len, const vc_op *op,
                           enum job_kind kind, const char *operation, int needs_computer) {
  if (json != NULL && len != 0 && !request_is_object(json, len)) {
    return not_an_object(op, operation);
  }
  job *j = start_job(json, len, op, kind, operation, needs_computer);
  if (j == NULL) return VC_OK;
  if (kind == JOB_CREATE) request_bool(json, len, "adopt_existing", &j->adopt_existing);
  return enqueue(self->plugin_ctx, j);
}
static vc_status VC_CALL validate(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  return queue_job(self, json, len, op, JOB_VALIDATE, "validate", 0);
}
static vc_status VC_CALL create(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  return queue_job(self, json, len, op, JOB_CREATE, "create", 1);
}
static vc_status VC_CALL attach(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  return queue_job(self, json, len, op, JOB_ATTACH, "attach", 1);
}
static vc_status VC_CALL list(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  return queue_job(self, json, len, op, JOB_LIST, "list", 0);
}
static vc_status VC_CALL remove_computer(vc_backend *self, const char *json, size_t len,
                                         const vc_op *op) {
  return queue_job(self, json, len, op, JOB_REMOVE, "remove", 1);
}

static vc_status VC_CALL ensure_image(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete(op, VC_OK, "{\"image\":\"host\",\"action\":\"present\"}", NULL);
  return VC_OK;
}

static vc_status VC_CALL exec(vc_backend *self, const char *json, size_t len,
                              const uint8_t *stdin_data, size_t stdin_len, const vc_op *op) {
  (void)stdin_data, (void)stdin_len;  /* without VC_CAP_EXEC_STDIN the host sends none */
  if (!request_is_object(json, len)) return not_an_object(op, "exec");
  job *j = start_job(json, len, op, JOB_EXEC, "exec", 1);
  if (j == NULL) return VC_OK;
  if (!request_string(json, len, "shell", j->shell, sizeof j->shell)) strcpy(j->shell, "/bin/sh");
  request_string(json, len, "working_directory", j->working_directory, sizeof j->working_directory);
  if (!request_string(json, len, "command", j->command, sizeof j->command) || j->command[0] == '\0' ||
      !request_integer(json, len, "timeout_ms", &j->timeout_ms) || j->timeout_ms < 1 ||
      !request_integer(json, len, "output_limit", &j->output_limit) || j->output_limit < 0) {
    free(j);
    complete(op, VC_E_INVALID_ARGUMENT, NULL,
             "Invalid exec request: command (this backend runs command strings, not argv), "
             "timeout_ms >= 1 and output_limit >= 0 are required.");
    return VC_OK;
  }
  return enqueue(self->plugin_ctx, j);
}

static vc_status VC_CALL tool_instructions(vc_backend *self, const char *json, size_t len, const vc_op *op) {
  (void)self, (void)json, (void)len;
  complete(op, VC_OK,
           "{\"instructions\":\"Execute a shell command on this host (NOT isolated: commands run "
           "as processes of the user running the MCP server), starting in a directory of their "
           "own. Files persist between calls; nothing else does.\"}", NULL);
  return VC_OK;
}

/* [loop-thread] A queued job is taken off the queue and completed here; a running one is
 * killed, and the worker completes it. An op that already completed is not found: a no-op. */
static void VC_CALL cancel(vc_backend *self, const vc_op *op) {
  backend *b = self->plugin_ctx;
  job *taken = NULL;
  pthread_mutex_lock(&b->mutex);
  for (job **link = &b->head, *prev = NULL; *link != NULL; prev = *link, link = &(*link)->next) {
    if ((*link)->op != op) continue;
    taken = *link;
    *link = taken->next;
    if (b->tail == taken) b->tail = prev;
    break;
  }
  if (taken == NULL && b->running == op) {
    b->running_cancelled = 1;
    if (b->running_group > 0) kill(-b->running_group, SIGKILL);
  }
  pthread_mutex_unlock(&b->mutex);
  if (taken != NULL) {
    complete(op, VC_E_CANCELLED, NULL, "The operation was cancelled.");
    free(taken);
  }
}

/* [loop-thread] Kills what runs, drops what is queued (nothing may call the host after this
 * returns), joins the worker. */
static void VC_CALL destroy(vc_backend *self) {
  backend *b = self->plugin_ctx;
  pthread_mutex_lock(&b->mutex);
  b->stopping = 1;
  if (b->running_group > 0) kill(-b->running_group, SIGKILL);
  pthread_cond_signal(&b->wake);
  pthread_mutex_unlock(&b->mutex);
  pthread_join(b->worker, NULL);
  while (b->head != NULL) {
    job *next = b->head->next;
    free(b->head);
    b->head = next;
  }
  pthread_cond_destroy(&b->wake);
  pthread_mutex_destroy(&b->mutex);
  free(b);
}

static const vc_backend_ops kOps = {
    .struct_size = sizeof(vc_backend_ops),
    .destroy = destroy,
    .cancel = cancel,
    .validate = validate,
    .ensure_image = ensure_image,
    .create = create,
    .attach = attach,
    .list = list,
    .remove = remove_computer,
    .exec = exec,
    .tool_instructions = tool_instructions,
};

/* [loop-thread] No I/O: validate creates the computers directory. */
static vc_status VC_CALL create_backend(const vc_host_services *host, const char *config_json,
                                        size_t config_len, vc_backend **out_backend, char *errbuf,
                                        size_t errbuf_cap) {
  (void)config_json, (void)config_len;  /* no options */
  backend *b = calloc(1, sizeof *b);
  if (b == NULL) return VC_E_NO_MEMORY;
  if (host->state_dir == NULL ||
      snprintf(b->root, sizeof b->root, "%s/computers", host->state_dir) >= (int)sizeof b->root) {
    snprintf(errbuf, errbuf_cap, "minimal-c: the host's state directory is missing or too long");
    free(b);
    return VC_E_INVALID_ARGUMENT;
  }
  pthread_mutex_init(&b->mutex, NULL);
  pthread_cond_init(&b->wake, NULL);
  if (pthread_create(&b->worker, NULL, worker_main, b) != 0) {
    snprintf(errbuf, errbuf_cap, "minimal-c: cannot start a thread");
    free(b);
    return VC_E_FAILED;
  }
  b->handle.struct_size = sizeof(vc_backend);
  b->handle.plugin_ctx = b;
  b->handle.ops = &kOps;
  *out_backend = &b->handle;
  return VC_OK;
}

static const vc_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(vc_plugin_descriptor),
    .magic = VC_DESCRIPTOR_MAGIC,
    .abi_major = VC_ABI_MAJOR,
    .abi_minor = VC_ABI_MINOR,
    .min_host_abi_minor = 0,
    .id = "org.mcp-virtual-computer.minimal-c",
    .name = "minimal-c",
    .version = "1.0.0",
    .vendor = "mcp-virtual-computer",
    .description = "C example backend: computers are directories on this host and commands run "
                   "as local processes. NOT a sandbox: commands can read and change the host.",
    .capabilities = VC_CAP_PERSISTENT | VC_CAP_KILLS_PROCESS_TREE,
    .options = NULL,
    .create_backend = create_backend,
    .module_shutdown = NULL,
};

VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  return host != NULL && host->abi_major != VC_ABI_MAJOR ? NULL : &kDescriptor;
}
