/* abi_surface.c — every public type of the backend ABI, reachable from exported functions.
 *
 * Built as a shared object with debug information, outside the sanitizer flags, so that
 * abidw(1) can describe the ABI from it. tests/abi/check_abi_baseline.sh compares that
 * description with the committed baseline (vc-backend-1.abi): a moved, resized, retyped or
 * removed field, a changed function-pointer signature or enum width fails the test. Each
 * function below takes one public type; the bodies do nothing.
 */
#include <vc-backend-1/vc_sdk.h>
#include <vc-backend-1/ext/vc_backend_checkpoints.h>
#include <vc-backend-1/ext/vc_backend_desktop_control.h>
#include <vc-backend-1/ext/vc_backend_processes.h>
#include <vc-backend-1/ext/vc_host_thread_check.h>

#define VC_SURFACE(type) \
  __attribute__((visibility("default"))) void vc_abi_surface_##type(const type *value); \
  void vc_abi_surface_##type(const type *value) { (void)value; }

VC_SURFACE(vc_plugin_descriptor)
VC_SURFACE(vc_option_decl)
VC_SURFACE(vc_host_info)
VC_SURFACE(vc_host_services)
VC_SURFACE(vc_backend)
VC_SURFACE(vc_backend_ops)
VC_SURFACE(vc_op)
VC_SURFACE(vc_backend_desktop_control)
VC_SURFACE(vc_backend_checkpoints)
VC_SURFACE(vc_backend_processes)
VC_SURFACE(vc_host_thread_check)
VC_SURFACE(vc_plugin_entry_fn)
VC_SURFACE(vc_async_op_fn)
VC_SURFACE(vc_exec_fn)
VC_SURFACE(vc_status)
VC_SURFACE(vc_caps)
VC_SURFACE(vc_stream)
VC_SURFACE(vc_option_type)
VC_SURFACE(vc_log_level)
