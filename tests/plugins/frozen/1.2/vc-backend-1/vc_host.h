/* vc_host.h — what the host tells and gives a plugin: vc_host_info at load time and the
 * vc_host_services table for each backend instance.
 * Threading tags ([loop-thread], [any-thread]): see vc_abi.h.
 */
#ifndef VC_BACKEND_1_HOST_H
#define VC_BACKEND_1_HOST_H

#include "vc_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Log levels mirror spdlog's. */
typedef int32_t vc_log_level;
#define VC_LOG_TRACE 0
#define VC_LOG_DEBUG 1
#define VC_LOG_INFO 2
#define VC_LOG_WARN 3
#define VC_LOG_ERROR 4
#define VC_LOG_CRITICAL 5

/* Passed to the entry function. Borrowed for the duration of that call. */
typedef struct vc_host_info {
  uint32_t struct_size;
  uint32_t abi_major;       /* the host's VC_ABI_MAJOR */
  uint32_t abi_minor;       /* the host's VC_ABI_MINOR */
  uint32_t reserved0;
  const char *host_name;    /* "mcp-virtual-computer" */
  const char *host_version; /* semver of the host */
  const char *plugin_path;  /* absolute path of the module being loaded */
} vc_host_info;

/* Services the host offers one backend instance. The table and every pointer in it stay
 * valid from create_backend() until destroy() returns. */
typedef struct vc_host_services vc_host_services;
struct vc_host_services {
  uint32_t struct_size;
  uint32_t reserved0;
  void *host_ctx; /* opaque to the plugin */

  /* [any-thread] Writes one log line into the host's log (logger "backend.<plugin id>").
   * `msg` need not be NUL-terminated; it is copied. Never blocks. */
  void(VC_CALL *log)(const vc_host_services *host, vc_log_level level, const char *msg,
                     size_t msg_len);

  /* [any-thread] Optional host interface by versioned id (see ext/); NULL when absent. */
  const void *(VC_CALL *get_extension)(const vc_host_services *host, const char *id);

  /* Absolute path of a writable directory owned by this plugin (created by the host), for
   * caches and state that must survive a host restart. NUL-terminated. */
  const char *state_dir;

  /* 1.x additions strictly below; check with VC_HAS_FIELD before use. */
};

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_HOST_H */
