/* vc_option.h — command-line options a plugin declares.
 *
 * The host registers these with its command-line parser after it has chosen the backend, so
 * `mcp-virtual-computer --backend X --help` lists them. Parsed values reach the plugin in the
 * config document of create_backend(): {"options": {"<name>": <value>, ...}} with every
 * declared option present (its default when not given; JSON null when it has no default).
 */
#ifndef VC_BACKEND_1_OPTION_H
#define VC_BACKEND_1_OPTION_H

#include "vc_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t vc_option_type;
#define VC_OPTION_STRING 1u      /* JSON string */
#define VC_OPTION_INTEGER 2u     /* JSON integer (int64) */
#define VC_OPTION_NUMBER 3u      /* JSON number (double) */
#define VC_OPTION_BOOL 4u        /* JSON boolean; also gets a --no-<name> form */
#define VC_OPTION_STRING_LIST 5u /* JSON array of strings; the flag is repeatable */

typedef struct vc_option_decl {
  uint32_t struct_size;
  vc_option_type type;
  /* Long option name without dashes, [a-z0-9-]+, e.g. "docker-host". Must not clash with a
   * host option; the host refuses the plugin if it does. */
  const char *name;
  const char *help;          /* one-line help text */
  const char *default_value; /* textual default as typed on the command line; NULL = none */
  const char *env_var;       /* environment variable read when the flag is absent; or NULL */
  /* 1.x additions strictly below. */
} vc_option_decl;

#ifdef __cplusplus
}
#endif
#endif /* VC_BACKEND_1_OPTION_H */
