/* layout_1_0.c — locks the binary layout of ABI 1.0.
 *
 * Every public struct's size and alignment, and every field's offset and size, as published in
 * ABI 1.0 for LP64 targets (x86_64, aarch64), plus the values of every public constant. Built
 * as C11 in the test build: an edit that moves, resizes or renumbers anything published fails
 * to compile. Fields appended in a later 1.x minor get a new file (layout_1_<minor>.c); lines
 * here are never removed. The one kind of change: a struct that grows in a later minor has its
 * sizeof() lock replaced by VC_LOCK_EXTENT (where its 1.0 fields end, and its alignment); its
 * new size is locked in that minor's file.
 */
#include <vc-backend-1/vc_sdk.h>

#define VC_LOCK_SIZE(type, size, align)                                    \
  _Static_assert(sizeof(type) == (size), "sizeof(" #type ") changed");     \
  _Static_assert(_Alignof(type) == (align), "_Alignof(" #type ") changed")

#define VC_LOCK_FIELD(type, field, offset, size)                                        \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " moved");         \
  _Static_assert(sizeof(((type *)0)->field) == (size), #type "." #field " was resized")

/* The 1.0 fields of a struct that grew later end at `end`: what a 1.0 producer's struct_size
 * says. */
#define VC_LOCK_EXTENT(type, last_field, end, align)                                        \
  _Static_assert(offsetof(type, last_field) + sizeof(((type *)0)->last_field) == (end),    \
                 "the 1.0 part of " #type " changed");                                     \
  _Static_assert(_Alignof(type) == (align), "_Alignof(" #type ") changed")

#define VC_LOCK_VALUE(name, value) _Static_assert((name) == (value), #name " was renumbered")

/* --- scalar types ------------------------------------------------------------------------- */
_Static_assert(sizeof(vc_status) == 4, "vc_status is int32_t");
_Static_assert((vc_status)-1 < 0, "vc_status is signed");
_Static_assert(sizeof(vc_caps) == 8, "vc_caps is uint64_t");
_Static_assert(sizeof(vc_stream) == 4, "vc_stream is uint32_t");
_Static_assert(sizeof(vc_option_type) == 4, "vc_option_type is uint32_t");
_Static_assert(sizeof(vc_log_level) == 4, "vc_log_level is int32_t");

/* --- constants ------------------------------------------------------------------------------ */
VC_LOCK_VALUE(VC_ABI_MAJOR, 1u);
VC_LOCK_VALUE(VC_DESCRIPTOR_MAGIC, 0x31424356u);

VC_LOCK_VALUE(VC_OK, 0);
VC_LOCK_VALUE(VC_NOTE_TRUNCATED, 1);
VC_LOCK_VALUE(VC_E_FAILED, -1);
VC_LOCK_VALUE(VC_E_INVALID_ARGUMENT, -2);
VC_LOCK_VALUE(VC_E_UNSUPPORTED, -3);
VC_LOCK_VALUE(VC_E_NOT_FOUND, -4);
VC_LOCK_VALUE(VC_E_ALREADY_EXISTS, -5);
VC_LOCK_VALUE(VC_E_CANCELLED, -6);
VC_LOCK_VALUE(VC_E_TIMEOUT, -7);
VC_LOCK_VALUE(VC_E_BUSY, -8);
VC_LOCK_VALUE(VC_E_UNAVAILABLE, -9);
VC_LOCK_VALUE(VC_E_PERMISSION, -10);
VC_LOCK_VALUE(VC_E_NO_MEMORY, -11);
VC_LOCK_VALUE(VC_E_INCOMPATIBLE, -12);
VC_LOCK_VALUE(VC_E_BACKPRESSURE, -13);
VC_LOCK_VALUE(VC_E_COMPUTER_DIED, -14);
VC_LOCK_VALUE(VC_E_COMPUTER_STOPPED, -15);
VC_LOCK_VALUE(VC_E_EXTENSION_BASE, -1000);
VC_LOCK_VALUE(VC_E_PLUGIN_BASE, -10000);

VC_LOCK_VALUE(VC_LOG_TRACE, 0);
VC_LOCK_VALUE(VC_LOG_DEBUG, 1);
VC_LOCK_VALUE(VC_LOG_INFO, 2);
VC_LOCK_VALUE(VC_LOG_WARN, 3);
VC_LOCK_VALUE(VC_LOG_ERROR, 4);
VC_LOCK_VALUE(VC_LOG_CRITICAL, 5);

VC_LOCK_VALUE(VC_STREAM_STDOUT, 1u);
VC_LOCK_VALUE(VC_STREAM_STDERR, 2u);
VC_LOCK_VALUE(VC_STREAM_PROGRESS, 3u);

VC_LOCK_VALUE(VC_OPTION_STRING, 1u);
VC_LOCK_VALUE(VC_OPTION_INTEGER, 2u);
VC_LOCK_VALUE(VC_OPTION_NUMBER, 3u);
VC_LOCK_VALUE(VC_OPTION_BOOL, 4u);
VC_LOCK_VALUE(VC_OPTION_STRING_LIST, 5u);

VC_LOCK_VALUE(VC_CAP_ISOLATED, UINT64_C(1) << 0);
VC_LOCK_VALUE(VC_CAP_PERSISTENT, UINT64_C(1) << 1);
VC_LOCK_VALUE(VC_CAP_RESTART, UINT64_C(1) << 2);
VC_LOCK_VALUE(VC_CAP_FACTORY_RESET, UINT64_C(1) << 3);
VC_LOCK_VALUE(VC_CAP_NETWORK_ACCESS, UINT64_C(1) << 4);
VC_LOCK_VALUE(VC_CAP_DESKTOP, UINT64_C(1) << 5);
VC_LOCK_VALUE(VC_CAP_EXEC_STDIN, UINT64_C(1) << 6);
VC_LOCK_VALUE(VC_CAP_WAIT_FOR_DEATH, UINT64_C(1) << 7);
VC_LOCK_VALUE(VC_CAP_KILLS_PROCESS_TREE, UINT64_C(1) << 8);
VC_LOCK_VALUE(VC_CAP_IMAGES, UINT64_C(1) << 9);

/* --- struct layouts (LP64) ------------------------------------------------------------------- */
#if defined(__LP64__) || defined(_LP64)

/* vc_host_info */
VC_LOCK_SIZE(vc_host_info, 40, 8);
VC_LOCK_FIELD(vc_host_info, struct_size, 0, 4);
VC_LOCK_FIELD(vc_host_info, abi_major, 4, 4);
VC_LOCK_FIELD(vc_host_info, abi_minor, 8, 4);
VC_LOCK_FIELD(vc_host_info, reserved0, 12, 4);
VC_LOCK_FIELD(vc_host_info, host_name, 16, 8);
VC_LOCK_FIELD(vc_host_info, host_version, 24, 8);
VC_LOCK_FIELD(vc_host_info, plugin_path, 32, 8);

/* vc_host_services */
VC_LOCK_SIZE(vc_host_services, 40, 8);
VC_LOCK_FIELD(vc_host_services, struct_size, 0, 4);
VC_LOCK_FIELD(vc_host_services, reserved0, 4, 4);
VC_LOCK_FIELD(vc_host_services, host_ctx, 8, 8);
VC_LOCK_FIELD(vc_host_services, log, 16, 8);
VC_LOCK_FIELD(vc_host_services, get_extension, 24, 8);
VC_LOCK_FIELD(vc_host_services, state_dir, 32, 8);

/* vc_op */
VC_LOCK_EXTENT(vc_op, is_cancelled, 40, 8); /* grew in 1.1: layout_1_1.c */
VC_LOCK_FIELD(vc_op, struct_size, 0, 4);
VC_LOCK_FIELD(vc_op, reserved0, 4, 4);
VC_LOCK_FIELD(vc_op, host_ctx, 8, 8);
VC_LOCK_FIELD(vc_op, complete, 16, 8);
VC_LOCK_FIELD(vc_op, emit, 24, 8);
VC_LOCK_FIELD(vc_op, is_cancelled, 32, 8);

/* vc_option_decl */
VC_LOCK_SIZE(vc_option_decl, 40, 8);
VC_LOCK_FIELD(vc_option_decl, struct_size, 0, 4);
VC_LOCK_FIELD(vc_option_decl, type, 4, 4);
VC_LOCK_FIELD(vc_option_decl, name, 8, 8);
VC_LOCK_FIELD(vc_option_decl, help, 16, 8);
VC_LOCK_FIELD(vc_option_decl, default_value, 24, 8);
VC_LOCK_FIELD(vc_option_decl, env_var, 32, 8);

/* vc_backend_ops */
VC_LOCK_SIZE(vc_backend_ops, 144, 8);
VC_LOCK_FIELD(vc_backend_ops, struct_size, 0, 4);
VC_LOCK_FIELD(vc_backend_ops, reserved0, 4, 4);
VC_LOCK_FIELD(vc_backend_ops, destroy, 8, 8);
VC_LOCK_FIELD(vc_backend_ops, cancel, 16, 8);
VC_LOCK_FIELD(vc_backend_ops, get_extension, 24, 8);
VC_LOCK_FIELD(vc_backend_ops, validate, 32, 8);
VC_LOCK_FIELD(vc_backend_ops, ensure_image, 40, 8);
VC_LOCK_FIELD(vc_backend_ops, create, 48, 8);
VC_LOCK_FIELD(vc_backend_ops, attach, 56, 8);
VC_LOCK_FIELD(vc_backend_ops, list, 64, 8);
VC_LOCK_FIELD(vc_backend_ops, restart, 72, 8);
VC_LOCK_FIELD(vc_backend_ops, remove, 80, 8);
VC_LOCK_FIELD(vc_backend_ops, factory_reset, 88, 8);
VC_LOCK_FIELD(vc_backend_ops, set_network_access, 96, 8);
VC_LOCK_FIELD(vc_backend_ops, get_desktop_environment, 104, 8);
VC_LOCK_FIELD(vc_backend_ops, set_desktop_environment, 112, 8);
VC_LOCK_FIELD(vc_backend_ops, exec, 120, 8);
VC_LOCK_FIELD(vc_backend_ops, wait_for_death, 128, 8);
VC_LOCK_FIELD(vc_backend_ops, tool_instructions, 136, 8);

/* vc_backend */
VC_LOCK_SIZE(vc_backend, 24, 8);
VC_LOCK_FIELD(vc_backend, struct_size, 0, 4);
VC_LOCK_FIELD(vc_backend, reserved0, 4, 4);
VC_LOCK_FIELD(vc_backend, plugin_ctx, 8, 8);
VC_LOCK_FIELD(vc_backend, ops, 16, 8);

/* vc_plugin_descriptor */
VC_LOCK_SIZE(vc_plugin_descriptor, 96, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, struct_size, 0, 4);
VC_LOCK_FIELD(vc_plugin_descriptor, magic, 4, 4);
VC_LOCK_FIELD(vc_plugin_descriptor, abi_major, 8, 4);
VC_LOCK_FIELD(vc_plugin_descriptor, abi_minor, 12, 4);
VC_LOCK_FIELD(vc_plugin_descriptor, min_host_abi_minor, 16, 4);
VC_LOCK_FIELD(vc_plugin_descriptor, reserved0, 20, 4);
VC_LOCK_FIELD(vc_plugin_descriptor, id, 24, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, name, 32, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, version, 40, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, vendor, 48, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, description, 56, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, capabilities, 64, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, options, 72, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, create_backend, 80, 8);
VC_LOCK_FIELD(vc_plugin_descriptor, module_shutdown, 88, 8);

/* vc_host_thread_check */
VC_LOCK_SIZE(vc_host_thread_check, 8, 8);
VC_LOCK_FIELD(vc_host_thread_check, is_loop_thread, 0, 8);

/* vc_backend_desktop_control */
VC_LOCK_SIZE(vc_backend_desktop_control, 16, 8);
VC_LOCK_FIELD(vc_backend_desktop_control, struct_size, 0, 4);
VC_LOCK_FIELD(vc_backend_desktop_control, desktop_action, 8, 8);

#endif /* LP64 */

int main(void) { return 0; }
