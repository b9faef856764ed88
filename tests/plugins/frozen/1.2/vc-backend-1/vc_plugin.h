/* vc_plugin.h — the plugin descriptor and the one exported entry symbol.
 *
 * Loading, as the host does it:
 *   1. dlopen(path, RTLD_NOW | RTLD_LOCAL); look up VC_ENTRY_SYMBOL ("vc_plugin_entry_v1").
 *   2. Call it with the host's vc_host_info. It returns a static descriptor (or NULL to refuse).
 *   3. Accept iff magic == VC_DESCRIPTOR_MAGIC, abi_major == VC_ABI_MAJOR, the descriptor covers
 *      the 1.0 fields, and min_host_abi_minor <= the host's minor. Any plugin minor is accepted.
 *   4. Register the declared options, parse the command line, call create_backend() with the
 *      parsed values.
 */
#ifndef VC_BACKEND_1_PLUGIN_H
#define VC_BACKEND_1_PLUGIN_H

#include "vc_abi.h"
#include "vc_backend.h"
#include "vc_host.h"
#include "vc_option.h"
#include "vc_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vc_plugin_descriptor {
  uint32_t struct_size;
  uint32_t magic;              /* VC_DESCRIPTOR_MAGIC */
  uint32_t abi_major;          /* VC_ABI_MAJOR of the header the plugin was built with */
  uint32_t abi_minor;          /* VC_ABI_MINOR of that header */
  uint32_t min_host_abi_minor; /* the oldest host minor this plugin works with: 1 when it
                                * relies on a 1.1 addition (vc_op.id, adopt_existing) being
                                * there; an older host then refuses to load it */
  uint32_t reserved0;
  const char *id;          /* reverse-DNS, unique: "org.example.docker" */
  const char *name;        /* short backend name used by --backend: "docker"; [a-z0-9-]+ */
  const char *version;     /* the plugin's own semver */
  const char *vendor;
  const char *description; /* one line for listings and --help */
  vc_caps capabilities;
  /* NULL-terminated array of option declarations; NULL when the plugin has none. */
  const vc_option_decl *const *options;
  /* [loop-thread] No blocking I/O here (probe the engine in validate()). `config_json` is
   * {"options":{...}} (see vc_option.h). On failure returns an error status and writes a
   * NUL-terminated, actionable message into errbuf (truncated to errbuf_cap). */
  vc_status(VC_CALL *create_backend)(const vc_host_services *host, const char *config_json,
                                     size_t config_len, vc_backend **out_backend, char *errbuf,
                                     size_t errbuf_cap);
  /* [loop-thread] Optional; called before an (unusual) unload, after every instance was
   * destroyed. */
  void(VC_CALL *module_shutdown)(void);
  /* 1.x additions strictly below. */
} vc_plugin_descriptor;

/* [loop-thread] The exported entry. Fast, idempotent, no I/O; may return NULL to refuse the
 * host. The descriptor and everything it points to stay valid while the module is loaded. */
typedef const vc_plugin_descriptor *(VC_CALL *vc_plugin_entry_fn)(const vc_host_info *host);

/* A plugin defines exactly this function (and nothing else is exported):
 *   VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *h)
 */
#define VC_PLUGIN_ENTRY VC_EXTERN_C VC_EXPORT

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_PLUGIN_H */
