/* broken_plugin.c — one source, many deliberately broken plugins. Each build defines exactly one
 * BROKEN_* macro (see tests/plugins/CMakeLists.txt); the host must refuse every result with a
 * one-line message and never crash. Built from the frozen 1.0 headers. */
#include <vc-backend-1/vc_sdk.h>

#include <stdio.h>

#if defined(BROKEN_MISSING_DEPENDENCY)
int vc_test_gone_function(void); /* lives in a library the loader cannot find */
#endif

#if !defined(BROKEN_NULL_CREATE)
static vc_status VC_CALL create_backend(const vc_host_services *host, const char *config_json,
                                        size_t config_len, vc_backend **out_backend, char *errbuf,
                                        size_t errbuf_cap) {
  (void)host, (void)config_json, (void)config_len, (void)out_backend;
#if defined(BROKEN_FACTORY_FAILS)
  snprintf(errbuf, errbuf_cap, "engine config invalid: boom");
  return VC_E_INVALID_ARGUMENT;
#else
  snprintf(errbuf, errbuf_cap, "this test plugin creates no backends");
  return VC_E_UNSUPPORTED;
#endif
}
#endif

/* ---- option declarations ---------------------------------------------------------------- */

#if defined(BROKEN_OPTION_BAD_NAME)
static const vc_option_decl g_option = {sizeof(vc_option_decl),
                                        VC_OPTION_STRING,
                                        "Bad_Name",
                                        "An option with an invalid name.",
                                        NULL,
                                        NULL};
static const vc_option_decl *const g_options[] = {&g_option, NULL};
#elif defined(BROKEN_OPTION_BAD_TYPE)
static const vc_option_decl g_option = {
    sizeof(vc_option_decl), 42u, "mystery", "An option of a type that does not exist.", NULL, NULL};
static const vc_option_decl *const g_options[] = {&g_option, NULL};
#elif defined(BROKEN_OPTION_DUPLICATE)
static const vc_option_decl g_first = {
    sizeof(vc_option_decl), VC_OPTION_STRING, "endpoint", "Declared once.", NULL, NULL};
static const vc_option_decl g_second = {
    sizeof(vc_option_decl), VC_OPTION_INTEGER, "endpoint", "Declared again.", NULL, NULL};
static const vc_option_decl *const g_options[] = {&g_first, &g_second, NULL};
#elif defined(BROKEN_OPTION_BAD_DEFAULT)
static const vc_option_decl g_option = {sizeof(vc_option_decl),
                                        VC_OPTION_INTEGER,
                                        "retries",
                                        "An integer whose default is not one.",
                                        "many",
                                        NULL};
static const vc_option_decl *const g_options[] = {&g_option, NULL};
#else
static const vc_option_decl *const *const g_options = NULL;
#endif

/* ---- descriptor -------------------------------------------------------------------------- */

#if defined(BROKEN_WRONG_MAGIC)
#define DESCRIPTOR_MAGIC 0xdeadbeefu
#else
#define DESCRIPTOR_MAGIC VC_DESCRIPTOR_MAGIC
#endif

#if defined(BROKEN_ABI_MAJOR_2)
#define DESCRIPTOR_ABI_MAJOR 2u
#else
#define DESCRIPTOR_ABI_MAJOR VC_ABI_MAJOR
#endif

#if defined(BROKEN_NEEDS_MINOR_99)
#define DESCRIPTOR_MIN_HOST_MINOR 99u
#else
#define DESCRIPTOR_MIN_HOST_MINOR 0u
#endif

#if defined(BROKEN_STRUCT_TOO_SMALL)
#define DESCRIPTOR_SIZE 24u /* covers magic and versions, not the 1.0 fields */
#else
#define DESCRIPTOR_SIZE ((uint32_t)sizeof(vc_plugin_descriptor))
#endif

#if defined(BROKEN_NULL_ID)
#define DESCRIPTOR_ID NULL
#else
#define DESCRIPTOR_ID "org.example.broken"
#endif

#if defined(BROKEN_NULL_NAME)
#define DESCRIPTOR_NAME NULL
#elif defined(BROKEN_BAD_NAME)
#define DESCRIPTOR_NAME "Bad_Name"
#elif defined(BROKEN_FACTORY_FAILS)
#define DESCRIPTOR_NAME "factory-fails"
#else
#define DESCRIPTOR_NAME "broken"
#endif

#if defined(BROKEN_NULL_CREATE)
#define DESCRIPTOR_CREATE NULL
#else
#define DESCRIPTOR_CREATE create_backend
#endif

static const vc_plugin_descriptor g_descriptor = {
    .struct_size = DESCRIPTOR_SIZE,
    .magic = DESCRIPTOR_MAGIC,
    .abi_major = DESCRIPTOR_ABI_MAJOR,
    .abi_minor = 0u,
    .min_host_abi_minor = DESCRIPTOR_MIN_HOST_MINOR,
    .id = DESCRIPTOR_ID,
    .name = DESCRIPTOR_NAME,
    .version = "0.0.1",
    .vendor = "mcp-virtual-computer tests",
    .description = "A deliberately broken plugin.",
    .capabilities = 0,
    .options = g_options,
    .create_backend = DESCRIPTOR_CREATE,
    .module_shutdown = NULL,
};

/* ---- entry --------------------------------------------------------------------------------- */

#if defined(BROKEN_NO_ENTRY)
/* Exports something, just not the entry symbol. */
VC_EXTERN_C VC_EXPORT const vc_plugin_descriptor *vc_plugin_entry(void) { return &g_descriptor; }
#elif defined(BROKEN_ENTRY_V2)
/* A plugin for a future ABI major exports only that major's entry. */
VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v2(const vc_host_info *host) {
  (void)host;
  return &g_descriptor;
}
#else
VC_PLUGIN_ENTRY const vc_plugin_descriptor *VC_CALL vc_plugin_entry_v1(const vc_host_info *host) {
  (void)host;
#if defined(BROKEN_ENTRY_NULL)
  (void)g_descriptor; /* it would be valid; the entry refuses anyway */
  return NULL;
#else
#if defined(BROKEN_MISSING_DEPENDENCY)
  if (vc_test_gone_function() != 0) return NULL;
#endif
  return &g_descriptor;
#endif
}
#endif
